// The declarative OVS operations (planOvs / reconcileOvs) against a private ovsdb-server +
// ovs-vswitchd (userspace datapath): state read back with ovs-vsctl and from the kernel, the plan
// of an applied state empty, foreign bridges and ports untouched.
import {
  createTempNetns,
  startOvs,
  uniqueName,
  until,
  type OvsInstance,
  type TempNetns,
} from '@fabrik/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OVS_OWNER_KEY,
  OVS_STATE_COLUMNS,
  connectOvsdb,
  formatOvsPlan,
  isOvsdbOwnershipError,
  planOvs,
  reconcileOvs,
  type OvsDesiredState,
  type OvsdbClient,
} from './index.js';

const OWNER = 'agent-host-test';
let ovs: OvsInstance;
let client: OvsdbClient;
let switchNs: TempNetns;

beforeAll(async () => {
  switchNs = await createTempNetns('fovr-');
  ovs = await startOvs({ netns: switchNs.name });
  client = await connectOvsdb(ovs.endpoint, { reconnect: { initialDelayMs: 50, maxDelayMs: 500 } });
  // Only the columns the planner reads: proves the list is enough.
  await client.monitor(OVS_STATE_COLUMNS);
});
afterAll(async () => {
  await client?.close();
  await ovs?.stop();
  await switchNs?.destroy();
});

const get = async (table: string, record: string, column: string) =>
  (await ovs.vsctl('--no-wait', 'get', table, record, column)).trim();
const exists = async (table: string, record: string) =>
  ovs.vsctl('--no-wait', 'get', table, record, '_uuid').then(
    () => true,
    () => false,
  );

describe('reconcileOvs', () => {
  it('creates, repairs and removes only its own rows, around foreign bridges and ports', async () => {
    const br = uniqueName('fra');
    const uplink = uniqueName('frup');
    const vlanPort = `${br}.100`;
    const foreignBridge = uniqueName('frf');
    const foreignPort = uniqueName('frfp');
    // A NIC for the uplink: one end of a veth in vswitchd's namespace.
    await switchNs.ip('link', 'add', uplink, 'type', 'veth', 'peer', 'name', `${uplink}p`);
    await switchNs.ip('link', 'set', uplink, 'up');
    await ovs.vsctl('add-br', foreignBridge, '--', 'set', 'bridge', foreignBridge, 'datapath_type=netdev');

    const desired: OvsDesiredState = {
      owner: OWNER,
      bridges: [
        {
          name: br,
          datapathType: 'netdev',
          mcastSnooping: true,
          otherConfig: { hwaddr: '02:fa:00:00:00:01' },
          ports: [
            { name: uplink, tag: null, trunks: [100, 200], vlanMode: null },
            { name: vlanPort, type: 'internal', tag: 100, trunks: [], mtuRequest: 1400 },
          ],
        },
      ],
    };
    const first = await reconcileOvs(client, desired);
    expect(formatOvsPlan(first)).toEqual([
      `add-br ${br} datapath_type=netdev mcast_snooping_enable=true other_config:hwaddr=02:fa:00:00:00:01`,
      `add-port ${br} ${uplink} trunks=100,200`,
      `add-port ${br} ${vlanPort} type=internal tag=100 mtu_request=1400`,
    ]);
    expect(await get('Bridge', br, 'datapath_type')).toBe('netdev');
    expect(await get('Bridge', br, 'mcast_snooping_enable')).toBe('true');
    expect(await get('Bridge', br, 'other_config:hwaddr')).toBe('"02:fa:00:00:00:01"');
    expect(await get('Bridge', br, `external_ids:${OVS_OWNER_KEY}`)).toBe(OWNER);
    expect(await get('Port', uplink, 'trunks')).toBe('[100, 200]');
    expect(await get('Port', uplink, `external_ids:${OVS_OWNER_KEY}`)).toBe(OWNER);
    expect(await get('Port', vlanPort, 'tag')).toBe('100');
    // ovs-vswitchd acted on it: the internal port exists in the kernel with the requested MTU,
    // and the bridge's local port carries the MAC asked for.
    await until('vswitchd created the internal port', async () =>
      (await switchNs.ip('-j', 'link', 'show')).includes(`"${vlanPort}"`),
    );
    expect(JSON.parse(await switchNs.ip('-j', 'link', 'show', vlanPort))[0].mtu).toBe(1400);
    await until('the local port has the MAC of other_config:hwaddr', async () =>
      (await switchNs.ip('link', 'show', br)).includes('02:fa:00:00:00:01'),
    );

    // Applied: nothing more to do.
    expect(planOvs(desired, client.cache).ops).toEqual([]);
    expect((await reconcileOvs(client, desired)).changes).toEqual([]);

    // Drift by hand on an owned port, and a foreign port on the owned bridge: the drift is
    // repaired, the foreign port stays.
    await ovs.vsctl('set', 'port', uplink, 'trunks=300', 'tag=7');
    await ovs.vsctl('add-port', br, foreignPort, '--', 'set', 'interface', foreignPort, 'type=internal');
    await until('the cache saw the change', async () => planOvs(desired, client.cache).ops.length > 0);
    expect(formatOvsPlan(await reconcileOvs(client, desired))).toEqual([
      `set port ${uplink} tag=[] trunks=[100,200]`,
    ]);
    expect(await get('Port', uplink, 'trunks')).toBe('[100, 200]');
    expect(await get('Port', uplink, 'tag')).toBe('[]');

    // The bridge leaves the desired state: the foreign port keeps it alive, only owned ports go.
    const gone = { owner: OWNER, bridges: [] };
    const removal = await reconcileOvs(client, gone);
    expect(removal.kept).toEqual([{ bridge: br, foreignPorts: [foreignPort] }]);
    expect(await exists('Port', uplink)).toBe(false);
    expect(await exists('Port', vlanPort)).toBe(false);
    expect(await exists('Port', foreignPort)).toBe(true);
    expect(await exists('Bridge', br)).toBe(true);
    // Once the foreign port is gone, so is the bridge.
    await ovs.vsctl('del-port', br, foreignPort);
    await until('the cache saw the deletion', async () => planOvs(gone, client.cache).ops.length > 0);
    expect(formatOvsPlan(await reconcileOvs(client, gone))).toEqual([`del-br ${br}`]);
    expect(await exists('Bridge', br)).toBe(false);

    // The foreign bridge was never touched, and a desired state naming it is refused unchanged.
    expect(await exists('Bridge', foreignBridge)).toBe(true);
    expect(await get('Bridge', foreignBridge, 'external_ids')).toBe('{}');
    const claim: OvsDesiredState = {
      owner: OWNER,
      bridges: [{ name: foreignBridge, mcastSnooping: true, ports: [] }],
    };
    await expect(reconcileOvs(client, claim)).rejects.toSatisfy(isOvsdbOwnershipError);
    expect(await get('Bridge', foreignBridge, 'mcast_snooping_enable')).toBe('false');
  });
});
