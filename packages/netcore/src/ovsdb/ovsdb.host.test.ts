// The OVSDB client and the OVS operations against a private ovsdb-server + ovs-vswitchd
// (userspace datapath) started by the testkit. State is read back with ovs-vsctl, and
// forwarding is checked with pings between network namespaces.
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createTempNetns,
  startOvs,
  uniqueName,
  until,
  type OvsInstance,
  type TempNetns,
} from '@fabrik/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../exec/index.js';
import {
  addPort,
  connectOvsdb,
  DEFAULT_OVS_OWNER,
  deleteBridge,
  deletePort,
  deletePorts,
  ensureBridge,
  findPorts,
  isOvsdbConnectionError,
  isOvsdbNotFoundError,
  isOvsdbOwnershipError,
  isOvsInterfaceError,
  OVS_OWNER_KEY,
  setPortVlan,
  waitForOfport,
  waitForOfportInCache,
  waitForVswitchd,
  isOvsdbTimeoutError,
  OVS_STATE_COLUMNS,
  type OvsdbClient,
} from './index.js';

let ovs: OvsInstance;
/** The owner of rows created without an `owner` option. */
const DEFAULT = { owner: DEFAULT_OVS_OWNER };
let client: OvsdbClient;

// ovs-vswitchd competes for the CPU with every other test on this machine; these waits bound a
// hang, they do not measure speed.
const VSWITCHD_TIMEOUT_MS = 30_000;

/**
 * ovs-vswitchd runs in a namespace of its own: the userspace datapath creates its devices (the
 * `ovs-netdev` tap, internal ports) in vswitchd's namespace, where other OVS instances on this
 * machine would otherwise collide with them.
 */
let switchNs: TempNetns;

beforeAll(async () => {
  switchNs = await createTempNetns('fovsw-');
  ovs = await startOvs({ netns: switchNs.name });
  client = await connectOvsdb(ovs.endpoint, { reconnect: { initialDelayMs: 50, maxDelayMs: 500 } });
});
afterEach(async (context) => {
  // On failure, show what ovs-vswitchd was doing.
  if (context.task.result?.state !== 'fail') return;
  const log = await readFile(join(ovs.dir, 'vs.log'), 'utf8').catch(() => '');
  console.error(`ovs-vswitchd log (tail):\n${log.split('\n').slice(-40).join('\n')}`);
});
afterAll(async () => {
  await client?.close();
  await ovs?.stop();
  await switchNs?.destroy();
});

/** `ovs-vsctl get TABLE RECORD COLUMN`, trimmed. */
const get = async (table: string, record: string, column: string) =>
  (await ovs.vsctl('--no-wait', 'get', table, record, column)).trim();
/** Every value of `column` in `table`, straight from the database. */
const column = async (table: string, col: string) =>
  (await ovs.vsctl('--no-wait', '--bare', `--columns=${col}`, 'list', table))
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the promise to reject');
}

describe('bridges and ports', () => {
  it('creates a bridge and ports with tag and trunks that read back from the database, idempotently', async () => {
    const br = uniqueName('fbr');
    const access = uniqueName('fpa');
    const trunk = uniqueName('fpt');
    const created = await ensureBridge(client, {
      name: br,
      datapathType: 'netdev',
      failMode: 'standalone',
      mcastSnooping: true,
      externalIds: { network: 'blue' },
    });
    expect(created.created).toBe(true);
    expect(
      await ensureBridge(client, { name: br, datapathType: 'netdev', externalIds: { network: 'blue' } }),
    ).toEqual({ uuid: created.uuid, created: false });
    expect(await get('Bridge', br, 'datapath_type')).toBe('netdev');
    expect(await get('Bridge', br, 'fail_mode')).toBe('standalone');
    expect(await get('Bridge', br, 'mcast_snooping_enable')).toBe('true');
    expect(await get('Bridge', br, `external_ids:${OVS_OWNER_KEY}`)).toBe('fabrik');
    expect(await get('Bridge', br, 'external_ids:network')).toBe('blue');
    expect(await get('Interface', br, 'type')).toBe('internal');

    const ids = { 'fabrik-test': br };
    const accessPort = {
      bridge: br,
      name: access,
      type: 'internal',
      tag: 100,
      mtuRequest: 1400,
      ofportRequest: 77,
      externalIds: ids,
      interfaceExternalIds: { pod: 'a' },
      owner: 'fabrik-cni',
    } as const;
    const a1 = await addPort(client, accessPort);
    const a2 = await addPort(client, accessPort); // the same spec again: idempotent
    expect(a2).toEqual(a1);
    await addPort(client, {
      bridge: br,
      name: trunk,
      type: 'patch',
      peer: access,
      trunks: [10, 20],
      vlanMode: 'trunk',
      externalIds: ids,
    });

    expect((await ovs.vsctl('list-ports', br)).split('\n').filter(Boolean).sort()).toEqual(
      [access, trunk].sort(),
    );
    expect(await get('Port', access, 'tag')).toBe('100');
    expect(await get('Port', access, `external_ids:${OVS_OWNER_KEY}`)).toBe('fabrik-cni');
    expect(await get('Interface', access, 'mtu_request')).toBe('1400');
    expect(await get('Interface', access, 'external_ids:pod')).toBe('a');
    expect(await get('Port', trunk, 'trunks')).toBe('[10, 20]');
    expect(await get('Port', trunk, 'vlan_mode')).toBe('trunk');
    expect(await get('Interface', trunk, 'options:peer')).toBe(access);

    expect(await waitForOfport(client, access, { timeoutMs: VSWITCHD_TIMEOUT_MS })).toBe(77);
    const found = await findPorts(client, ids);
    expect(found.map((p) => p.name).sort()).toEqual([access, trunk].sort());
    const a = found.find((p) => p.name === access)!;
    expect(a).toMatchObject({
      bridge: br,
      uuid: a1.portUuid,
      tag: 100,
      trunks: [],
      interface: {
        name: access,
        type: 'internal',
        uuid: a1.interfaceUuid,
        ofport: 77,
        externalIds: { pod: 'a' },
      },
    });
    expect(a.interface.mac).toMatch(/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/);
    expect(found.find((p) => p.name === trunk)).toMatchObject({
      trunks: [10, 20],
      vlanMode: 'trunk',
      interface: { type: 'patch' },
    });

    const cniOwner = { owner: 'fabrik-cni' };
    await setPortVlan(client, access, { tag: null, trunks: [30], vlanMode: 'native-untagged' }, cniOwner);
    expect(await get('Port', access, 'tag')).toBe('[]');
    expect(await get('Port', access, 'trunks')).toBe('[30]');
    expect(await get('Port', access, 'vlan_mode')).toBe('native-untagged');
    await setPortVlan(client, access, { tag: 200 }, cniOwner);
    expect(await get('Port', access, 'tag')).toBe('200');
    expect(await get('Port', access, 'trunks')).toBe('[30]');

    await waitForVswitchd(client, { timeoutMs: VSWITCHD_TIMEOUT_MS });
    expect(Number(await get('Open_vSwitch', '.', 'cur_cfg'))).toBeGreaterThanOrEqual(
      Number(await get('Open_vSwitch', '.', 'next_cfg')),
    );

    expect(await deletePort(client, access, cniOwner)).toBe(true);
    expect(await deletePort(client, access, cniOwner)).toBe(false);
    await deleteBridge(client, br, DEFAULT); // with the trunk port and the bridge's own port
    await deleteBridge(client, br, DEFAULT); // absent: nothing to do
    expect(await column('Bridge', 'name')).not.toContain(br);
    for (const name of [br, access, trunk]) {
      expect(await column('Port', 'name')).not.toContain(name);
      expect(await column('Interface', 'name')).not.toContain(name);
    }
  }, 120_000);

  it('never changes or deletes rows fabrik did not create, and reports unknown names typed', async () => {
    const foreignBr = uniqueName('fxb');
    const br = uniqueName('fbr');
    const foreignPort = uniqueName('fxp');
    await ovs.addBridge(foreignBr);
    try {
      expect(isOvsdbOwnershipError(await caught(deleteBridge(client, foreignBr, DEFAULT)))).toBe(true);
      expect(
        isOvsdbOwnershipError(await caught(ensureBridge(client, { name: foreignBr, failMode: 'secure' }))),
      ).toBe(true);
      expect(await get('Bridge', foreignBr, 'fail_mode')).toBe('[]');

      await ensureBridge(client, { name: br, datapathType: 'netdev' });
      await ovs.vsctl(
        '--no-wait',
        'add-port',
        br,
        foreignPort,
        '--',
        'set',
        'interface',
        foreignPort,
        'type=internal',
      );
      expect(isOvsdbOwnershipError(await caught(deletePort(client, foreignPort, DEFAULT)))).toBe(true);
      expect(isOvsdbOwnershipError(await caught(setPortVlan(client, foreignPort, { tag: 5 }, DEFAULT)))).toBe(
        true,
      );
      expect(
        isOvsdbOwnershipError(await caught(addPort(client, { bridge: br, name: foreignPort, tag: 5 }))),
      ).toBe(true);
      expect(await get('Port', foreignPort, 'tag')).toBe('[]');

      const unknown = uniqueName('fno');
      expect(
        isOvsdbNotFoundError(await caught(addPort(client, { bridge: unknown, name: uniqueName('fp') }))),
      ).toBe(true);
      expect(isOvsdbNotFoundError(await caught(setPortVlan(client, unknown, { tag: 5 }, DEFAULT)))).toBe(
        true,
      );
      expect(isOvsdbNotFoundError(await caught(waitForOfport(client, unknown, { timeoutMs: 1000 })))).toBe(
        true,
      );
      expect(await caught(addPort(client, { bridge: br, name: 'bad name!' }))).toMatchObject({
        code: 'OVSDB_INVALID_INPUT',
        field: 'ports[0].name',
      });
      expect(await caught(addPort(client, { bridge: br, name: uniqueName('fp'), tag: 4095 }))).toMatchObject({
        code: 'OVSDB_INVALID_INPUT',
        field: 'ports[0].tag',
      });
      expect(
        await caught(
          addPort(client, {
            bridge: br,
            name: uniqueName('fp'),
            externalIds: { [OVS_OWNER_KEY]: 'someone-else' },
          }),
        ),
      ).toMatchObject({ code: 'OVSDB_INVALID_INPUT', field: `ports[0].externalIds.${OVS_OWNER_KEY}` });
    } finally {
      await ovs.vsctl('--no-wait', '--if-exists', 'del-br', foreignBr);
      await ovs.vsctl('--no-wait', '--if-exists', 'del-br', br);
    }
  });

  it('surfaces the Interface error column when ovs-vswitchd cannot open the device', async () => {
    const br = uniqueName('fbr');
    const missing = uniqueName('fmi');
    await ensureBridge(client, { name: br, datapathType: 'netdev' });
    try {
      await addPort(client, { bridge: br, name: missing });
      const e = await caught(waitForOfport(client, missing, { timeoutMs: VSWITCHD_TIMEOUT_MS }));
      expect(isOvsInterfaceError(e)).toBe(true);
      expect(e).toMatchObject({
        interfaceName: missing,
        interfaceError: expect.stringContaining('No such device'),
      });
    } finally {
      await deleteBridge(client, br, DEFAULT);
    }
  }, 120_000);

  it('waitForOfportInCache: an ofport, an interface error, a timeout and a close, read from a monitor', async () => {
    const br = uniqueName('fbr');
    const late = uniqueName('fpl');
    const missing = uniqueName('fmi');
    await ensureBridge(client, { name: br, datapathType: 'netdev' });
    const monitored = await connectOvsdb(ovs.endpoint);
    try {
      await monitored.monitor(OVS_STATE_COLUMNS);
      // Waiting starts before the interface exists: it is found when the update brings it.
      const ofport = waitForOfportInCache(monitored, late, { timeoutMs: VSWITCHD_TIMEOUT_MS });
      await addPort(client, { bridge: br, name: late, type: 'internal', ofportRequest: 78 });
      expect(await ofport).toBe(78);
      // Already in the cache: answered from it.
      expect(await waitForOfportInCache(monitored, late, { timeoutMs: VSWITCHD_TIMEOUT_MS })).toBe(78);

      await addPort(client, { bridge: br, name: missing });
      const failed = await caught(
        waitForOfportInCache(monitored, missing, { timeoutMs: VSWITCHD_TIMEOUT_MS }),
      );
      expect(isOvsInterfaceError(failed)).toBe(true);
      expect(failed).toMatchObject({
        interfaceName: missing,
        interfaceError: expect.stringContaining('No such device'),
      });

      const never = await caught(waitForOfportInCache(monitored, uniqueName('fnv'), { timeoutMs: 300 }));
      expect(isOvsdbTimeoutError(never)).toBe(true);
      expect(never).toMatchObject({ timeoutMs: 300 });

      const closing = caught(
        waitForOfportInCache(monitored, uniqueName('fnv'), { timeoutMs: VSWITCHD_TIMEOUT_MS }),
      );
      await monitored.close();
      expect(isOvsdbConnectionError(await closing)).toBe(true);
    } finally {
      await monitored.close();
      await deleteBridge(client, br, DEFAULT);
    }
  }, 120_000);

  it('100 concurrent addPort calls: all present, no duplicates; deleting leaves no rows', async () => {
    const br = uniqueName('fbr');
    const prefix = uniqueName('c');
    const names = Array.from({ length: 100 }, (_, i) => `${prefix}${i}`);
    await ensureBridge(client, { name: br, datapathType: 'netdev' });
    try {
      const same = { bridge: br, name: `${prefix}s`, type: 'internal' as const, tag: 7 };
      const results = await Promise.all([
        ...names.map((name, i) =>
          addPort(client, { bridge: br, name, type: 'patch', peer: `${prefix}x${i}`, tag: 1 + (i % 50) }),
        ),
        // The same port requested ten times at once (racing inserts hit the name index; the losers adopt the winner).
        ...Array.from({ length: 10 }, () => addPort(client, same)),
      ]);
      expect(new Set(results.slice(100).map((r) => r.portUuid)).size).toBe(1);
      const ports = (await ovs.vsctl('list-ports', br)).split('\n').filter(Boolean);
      expect(ports.sort()).toEqual([...names, same.name].sort());
      const portNames = await column('Port', 'name');
      expect(portNames.length).toBe(new Set(portNames).size);
      expect(new Set(results.slice(0, 100).map((r) => r.portUuid)).size).toBe(100);

      const deleted = await Promise.all([...names, same.name].map((n) => deletePort(client, n, DEFAULT)));
      expect(deleted.every(Boolean)).toBe(true);
      expect(await ovs.vsctl('list-ports', br)).toBe('');
      const left = [...(await column('Port', 'name')), ...(await column('Interface', 'name'))];
      expect(left.filter((n) => n.startsWith(prefix))).toEqual([]);
    } finally {
      await deleteBridge(client, br, DEFAULT);
    }
    expect(await column('Bridge', 'name')).not.toContain(br);
  });
});

describe('ownership between two owners (agent-host and cni-ovs)', () => {
  it("each owner's delete and change refuses the other's rows, and leaves them as they were", async () => {
    const host = { owner: 'agent-host' };
    const cni = { owner: 'cni-ovs' };
    const br = uniqueName('fbr');
    const hostPort = uniqueName('fph');
    const cniPort = uniqueName('fpc');
    await ensureBridge(client, { name: br, datapathType: 'netdev', ...host });
    await addPort(client, { bridge: br, name: hostPort, type: 'internal', tag: 10, ...host });
    await addPort(client, { bridge: br, name: cniPort, type: 'internal', tag: 20, ...cni });
    const rows = async () => ({
      bridges: await column('Bridge', 'name'),
      ports: (await column('Port', 'name')).sort(),
      tags: [await get('Port', hostPort, 'tag'), await get('Port', cniPort, 'tag')],
      owners: [
        await get('Bridge', br, `external_ids:${OVS_OWNER_KEY}`),
        await get('Port', hostPort, `external_ids:${OVS_OWNER_KEY}`),
        await get('Port', cniPort, `external_ids:${OVS_OWNER_KEY}`),
      ],
    });
    const before = await rows();
    expect(before.owners).toEqual(['agent-host', 'agent-host', 'cni-ovs']);
    try {
      const refusals = [
        await caught(deleteBridge(client, br, cni)),
        await caught(ensureBridge(client, { name: br, failMode: 'secure', ...cni })),
        await caught(deletePort(client, hostPort, cni)),
        await caught(deletePorts(client, [cniPort, hostPort], cni)),
        await caught(setPortVlan(client, hostPort, { tag: 99 }, cni)),
        await caught(addPort(client, { bridge: br, name: hostPort, tag: 99, ...cni })),
        await caught(deletePort(client, cniPort, host)),
        await caught(setPortVlan(client, cniPort, { tag: 99 }, host)),
        await caught(addPort(client, { bridge: br, name: cniPort, tag: 99, ...host })),
        // The bridge is agent-host's, but deleting it would delete cni-ovs's port with it.
        await caught(deleteBridge(client, br, host)),
      ];
      expect(refusals.map((e) => isOvsdbOwnershipError(e))).toEqual(refusals.map(() => true));
      expect(await rows()).toEqual(before);
      expect(await get('Bridge', br, 'fail_mode')).toBe('[]');

      // Each owner can delete its own rows.
      expect(await deletePort(client, cniPort, cni)).toBe(true);
      await deleteBridge(client, br, host);
      expect(await column('Bridge', 'name')).not.toContain(br);
      expect(await column('Port', 'name')).not.toContain(hostPort);
    } finally {
      await ovs.vsctl('--no-wait', '--if-exists', 'del-br', br);
    }
  });
});

describe('forwarding on the userspace datapath', () => {
  it('access ports on the same VLAN reach each other, on different VLANs they do not', async () => {
    const br = uniqueName('fbr');
    const namespaces: TempNetns[] = [];
    await ensureBridge(client, { name: br, datapathType: 'netdev' });
    try {
      const hosts: { ns: TempNetns; port: string; ip: string }[] = [];
      for (const [i, tag] of [100, 100, 200].entries()) {
        const ns = await createTempNetns('fovs-');
        namespaces.push(ns);
        const port = uniqueName('fvh');
        // The switch side of the veth lives where vswitchd runs.
        await switchNs.ip('link', 'add', port, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns.name);
        await switchNs.ip('link', 'set', port, 'up');
        await ns.ip('addr', 'add', `10.77.0.${i + 1}/24`, 'dev', 'eth0');
        await ns.ip('link', 'set', 'eth0', 'up');
        await addPort(client, { bridge: br, name: port, tag, externalIds: { 'fabrik-test': br } });
        await waitForOfport(client, port, { timeoutMs: VSWITCHD_TIMEOUT_MS });
        hosts.push({ ns, port, ip: `10.77.0.${i + 1}` });
      }
      const [a, b, c] = hosts as [(typeof hosts)[0], (typeof hosts)[0], (typeof hosts)[0]];
      await waitForVswitchd(client, { timeoutMs: VSWITCHD_TIMEOUT_MS });
      const ping = (from: TempNetns, ip: string, count: number) =>
        from.exec('ping', ['-c', String(count), '-i', '0.2', '-W', '1', ip]);
      await ping(a.ns, b.ip, 3);
      expect(await caught(ping(a.ns, c.ip, 2))).toMatchObject({ code: 'COMMAND_FAILED' });
      // Moving c to VLAN 100 connects it: the failure above was the VLAN, not the setup.
      await setPortVlan(client, c.port, { tag: 100 }, DEFAULT);
      await waitForVswitchd(client, { timeoutMs: VSWITCHD_TIMEOUT_MS });
      await ping(a.ns, c.ip, 3);
      expect((await findPorts(client, { 'fabrik-test': br })).map((p) => p.tag)).toEqual([100, 100, 100]);
    } finally {
      await deleteBridge(client, br, DEFAULT);
      for (const ns of namespaces) await ns.destroy();
    }
  }, 120_000);
});

describe('ovsdb-server restarts', () => {
  it('the client reconnects, re-monitors, and its cache matches the database again', async () => {
    const br = uniqueName('fbr');
    const p = uniqueName('fpr');
    const later = uniqueName('fpl');
    const db = join(ovs.dir, 'conf.db');
    await access(db);
    await client.monitor();
    await ensureBridge(client, { name: br, datapathType: 'netdev' });
    await addPort(client, { bridge: br, name: p, type: 'internal', tag: 10 });
    const cachedPort = (name: string) => [...client.cache.Port.values()].find((r) => r.name === name);
    await until('the cache has the port', async () => cachedPort(p)?.tag === 10);

    const states: string[] = [];
    const off = client.onStateChange((s) => states.push(s));
    const plain = await connectOvsdb(ovs.endpoint); // no reconnect: must fail typed, not hang
    try {
      await ovs.stopDb();
      await until('the client notices', async () => client.state === 'reconnecting');
      expect(isOvsdbConnectionError(await caught(plain.transact([])))).toBe(true);
      expect(plain.state).toBe('closed');
      // Changed while the server is down (offline, in the file): only a fresh monitor can see it.
      await runCommand('ovsdb-tool', [
        'transact',
        db,
        JSON.stringify([
          'Open_vSwitch',
          { op: 'update', table: 'Port', where: [['name', '==', p]], row: { tag: 300 } },
        ]),
      ]);
      // A request made while disconnected waits for the reconnect.
      let settled = false;
      const pending = addPort(client, { bridge: br, name: later, type: 'internal', tag: 20 }).finally(
        () => (settled = true),
      );
      await new Promise((r) => setImmediate(r));
      expect(settled).toBe(false);
      expect(client.state).toBe('reconnecting');
      await ovs.startDb();
      await pending;
      await until(
        'reconnected and resynced',
        async () => client.state === 'connected' && client.cache.synced,
      );
      expect(states).toEqual(['reconnecting', 'connected']);
      await until(
        'the cache shows the offline change and the later port',
        async () => cachedPort(p)?.tag === 300 && cachedPort(later)?.tag === 20,
      );

      // Changes made by others after the restart arrive too.
      await ovs.vsctl('--no-wait', 'set', 'port', later, 'tag=21');
      await until('the cache follows ovs-vsctl', async () => cachedPort(later)?.tag === 21);

      const names = (rows: ReadonlyMap<string, { name: string }>) =>
        [...rows.values()].map((r) => r.name).sort();
      expect(names(client.cache.Bridge)).toEqual((await column('Bridge', 'name')).sort());
      expect(names(client.cache.Port)).toEqual((await column('Port', 'name')).sort());
      expect(names(client.cache.Interface)).toEqual((await column('Interface', 'name')).sort());
      const bridge = [...client.cache.Bridge.values()].find((b) => b.name === br)!;
      expect(bridge.ports.length).toBe(3);
      expect([...client.cache.Open_vSwitch.values()][0]?.bridges).toContain(bridge._uuid);
    } finally {
      off();
      await plain.close();
      await deleteBridge(client, br, DEFAULT);
    }
    await until(
      'the cache drops the deleted rows',
      async () => cachedPort(p) === undefined && cachedPort(later) === undefined,
    );
  }, 120_000);
});
