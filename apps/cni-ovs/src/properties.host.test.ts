import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTempNetns, uniqueName, type OvsInstance } from '@fabrik/testkit';
import { NODE_LEVEL_FIELDS } from '@fabrik/ovs-attachment';
import {
  execPlugin,
  nodeState,
  type ExecResult,
  type PluginSandbox,
  usePluginTestBed,
} from '../test/harness.js';

// Property tests of the plugin as a runtime runs it (the bundled binary, a real OVS, the real
// kernel, Debian's host-local and static IPAM):
// - hostile input (generated configs and environments, each with one to three defects) gets a
//   JSON error with the code the spec gives that defect, within CALL_LIMIT_MS (a hang is killed
//   and fails the property), and leaves nothing behind: no OVS row, no link on the host or in the
//   Pod, no lease, no cache file; DEL of the same input then succeeds and changes nothing either;
// - generated valid configs ADD, CHECK and DEL cleanly, and DEL leaves the node as it was.
// A fixed seed and a bounded number of runs keep `npm test` reproducible; FABRIK_PROPERTY_RUNS
// asks for more runs, FABRIK_PROPERTY_SEED for another seed (fast-check prints the seed and the
// shrunk counterexample of a failure).

const RUNS = Number(process.env['FABRIK_PROPERTY_RUNS'] ?? 12);
const SEED = Number(process.env['FABRIK_PROPERTY_SEED'] ?? 20261130);
const CALL_LIMIT_MS = 30_000;
const PROPERTY_TIMEOUT_MS = Math.max(600_000, RUNS * 40_000);

const bed = usePluginTestBed({ bridgePrefix: 'brp' });
const { bridge } = bed;
let sb: PluginSandbox;
let ovs: OvsInstance;
/** Files the hostile CNI_NETNS values point at. */
let regularFile: string;

beforeAll(async () => {
  ({ sb, ovs } = bed);
  regularFile = join(sb.dir, 'regular-file');
  await writeFile(regularFile, 'not a namespace');
  await mkdir(sb.ipamDataDir, { recursive: true });
});

/** One plugin call: its environment and its config (an object, or raw text). */
interface Call {
  env: Record<string, string>;
  config: Record<string, unknown> | string;
}

/** A defect and the codes the spec gives it (one defect can be found in more than one way). */
interface Defect {
  readonly what: string;
  readonly codes: readonly number[];
  readonly apply: (call: Call) => void;
  /** Replaces the config by text: applied after the defects that change the config object. */
  readonly replacesConfig?: true;
}

const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const NAME_CHARS = `${ALNUM}_.-`;
const stringOf = (chars: string, minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...chars.split('')), minLength, maxLength });
const configOf = (call: Call): Record<string, unknown> => {
  if (typeof call.config === 'string') throw new Error('config already replaced by text');
  return call.config;
};
const setConfig = (path: readonly string[], value: unknown) => (call: Call) => {
  let o = configOf(call);
  for (const key of path.slice(0, -1)) {
    o[key] = typeof o[key] === 'object' && o[key] !== null ? o[key] : {};
    o = o[key] as Record<string, unknown>;
  }
  o[path.at(-1)!] = value;
};

// Values a JSON field can hold, for fields that want something else.
const jsonJunk = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.double({ noNaN: true }),
  fc.string({ maxLength: 20 }),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
);

const defects: fc.Arbitrary<Defect> = fc.oneof(
  // The environment (code 4).
  fc
    .oneof(
      fc.constantFrom(
        'all',
        'default',
        'lo',
        '.',
        '..',
        'a/b',
        'a:b',
        'a b',
        'net%d',
        'net*',
        'a@b',
        'é'.repeat(8),
      ),
      fc.string({ minLength: 16, maxLength: 40 }),
      stringOf(NAME_CHARS, 1, 15).map((s) => `${s}\n`),
    )
    .map((v): Defect => ({
      what: `CNI_IFNAME ${JSON.stringify(v)}`,
      codes: [4],
      apply: (c) => void (c.env['CNI_IFNAME'] = v),
    })),
  fc
    .oneof(
      stringOf(ALNUM, 129, 400),
      stringOf(NAME_CHARS, 0, 20).map((s) => `-${s}`),
      stringOf(ALNUM, 1, 10).map((s) => `${s}/../${s}`),
      fc.string({ minLength: 1, maxLength: 20 }).filter((s) => !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(s)),
    )
    .map((v): Defect => ({
      what: `CNI_CONTAINERID ${JSON.stringify(v.slice(0, 40))}`,
      codes: [4],
      apply: (c) => void (c.env['CNI_CONTAINERID'] = v),
    })),
  fc
    .constantFrom(
      () => regularFile,
      () => sb.dir,
      () => join(sb.dir, 'no-such-netns'),
      () => `/proc/${process.pid}/ns/mnt`,
      () => `/proc/${process.pid}/ns/uts`,
    )
    .map((path): Defect => ({
      what: 'CNI_NETNS not a netns',
      codes: [4],
      apply: (c) => void (c.env['CNI_NETNS'] = path()),
    })),
  fc
    .constantFrom(
      'FOO=bar',
      'novalue',
      'MAC=zz',
      'MAC=00:00:00:00:00:00',
      'IP=10.0.0.300',
      'IgnoreUnknown=0;X=1',
    )
    .map((v): Defect => ({ what: `CNI_ARGS ${v}`, codes: [4], apply: (c) => void (c.env['CNI_ARGS'] = v) })),
  // The config (code 7).
  fc
    .oneof(fc.integer({ min: 4095, max: 100_000 }), fc.integer({ max: -1 }), fc.constant(1.5), jsonJunk)
    .map((v): Defect => ({ what: `vlan ${JSON.stringify(v)}`, codes: [7], apply: setConfig(['vlan'], v) })),
  fc
    .oneof(fc.integer({ min: 65_536 }), fc.integer({ max: 67 }), jsonJunk)
    .map((v): Defect => ({ what: `mtu ${JSON.stringify(v)}`, codes: [7], apply: setConfig(['mtu'], v) })),
  fc
    .oneof(
      fc.constant([{ minID: 30, maxID: 20 }]),
      fc.constant([{ id: 0 }]),
      fc.constant([{ id: 4095 }]),
      fc.constant([{ id: 10, minID: 1 }]),
      jsonJunk.filter((v) => !Array.isArray(v) || v.length > 0),
    )
    .map((v): Defect => ({ what: `trunk ${JSON.stringify(v)}`, codes: [7], apply: setConfig(['trunk'], v) })),
  fc
    .oneof(stringOf(NAME_CHARS, 16, 40), fc.constantFrom('.', '..', 'a/b', 'br 0', ''), jsonJunk)
    .map((v): Defect => ({
      what: `bridge ${JSON.stringify(v)}`,
      codes: [7],
      apply: setConfig(['bridge'], v),
    })),
  fc
    .oneof(
      stringOf(ALNUM, 96, 300),
      fc.constantFrom('', '-n', '.n', 'a/b', 'a:b', 'a b'),
      jsonJunk.filter((v) => typeof v !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,94}$/.test(v)),
    )
    .map((v): Defect => ({
      what: `name ${JSON.stringify(v).slice(0, 40)}`,
      codes: [7],
      apply: setConfig(['name'], v),
    })),
  fc
    .oneof(
      fc.constantFrom('.', '..', '../host-local', '/usr/lib/cni/host-local', '', 'no-such-ipam'),
      stringOf(ALNUM, 256, 300),
      jsonJunk,
    )
    .map((v): Defect => ({
      what: `ipam.type ${JSON.stringify(v).slice(0, 40)}`,
      codes: [7],
      apply: setConfig(['ipam', 'type'], v),
    })),
  fc
    .tuple(
      fc.constantFrom(['runtimeConfig', 'mac'], ['args', 'cni', 'mac']),
      fc.oneof(
        fc.constantFrom(
          '00:00:00:00:00:00',
          '01:00:5e:00:00:01',
          'ff:ff:ff:ff:ff:ff',
          '02:00:00:00:00',
          'zz',
        ),
        jsonJunk,
      ),
    )
    .map(([path, v]): Defect => ({
      what: `${path.join('.')} ${JSON.stringify(v)}`,
      codes: [7],
      apply: setConfig(path, v),
    })),
  fc.tuple(fc.constantFrom(...NODE_LEVEL_FIELDS), jsonJunk).map(([field, v]): Defect => ({
    what: `node setting ${field}`,
    codes: [7],
    apply: setConfig([field], v),
  })),
  fc.constant<Defect>({
    what: 'networkType bridge with a vlan',
    codes: [7],
    apply: (c) => Object.assign(configOf(c), { networkType: 'bridge', vlan: 7 }),
  }),
  fc.constant<Defect>({
    what: 'a bridge that does not exist',
    codes: [7],
    apply: setConfig(['bridge'], 'br-nothere'),
  }),
  // IPAM plugins the node does not run (issue 38): main and meta plugins, fabrik-ovs itself (a fork
  // chain), anything not in ipam.allowedTypes.
  fc
    .constantFrom('fabrik-ovs', 'host-device', 'bridge', 'portmap', 'whereabouts', 'no-such-ipam')
    .map((type): Defect => ({
      what: `ipam.type ${type}`,
      codes: [7],
      apply: setConfig(['ipam'], { type, device: 'lo', subnet: '10.252.0.0/24' }),
    })),
  fc.constantFrom('/etc', '/', '/var/lib/cni/networks').map((dir): Defect => ({
    what: `host-local dataDir ${dir} from the network config`,
    codes: [7],
    apply: setConfig(['ipam', 'dataDir'], dir),
  })),
  fc
    .constantFrom(
      '224.0.0.1/4',
      '239.255.255.250/24',
      'ff02::1/64',
      '255.255.255.255/32',
      '10.9.0.255/24',
      '127.0.0.1/8',
    )
    .chain((address) =>
      fc.constantFrom<Defect>(
        {
          what: `static address ${address}`,
          codes: [7],
          apply: setConfig(['ipam'], { type: 'static', addresses: [{ address }] }),
        },
        {
          what: `requested IP ${address}`,
          codes: [7],
          apply: setConfig(['runtimeConfig', 'ips'], [address]),
        },
      ),
    ),
  fc.constant<Defect>({
    what: 'an IPAM config host-local refuses',
    codes: [999],
    apply: (c) => setConfig(['ipam'], { type: 'host-local', subnet: '10.250.0.300/24' })(c),
  }),
  fc
    .constantFrom('0.2.0', '9.9.9', '1.0')
    .map((v): Defect => ({ what: `cniVersion ${v}`, codes: [1], apply: setConfig(['cniVersion'], v) })),
  // The config's encoding (code 6).
  fc.integer({ min: 65, max: 20_000 }).map((depth): Defect => ({
    what: `nested ${depth} deep`,
    codes: [6],
    replacesConfig: true,
    apply: (c) => void (c.config = `{"cniVersion":"1.1.0","deep":${'['.repeat(depth)}${']'.repeat(depth)}}`),
  })),
  fc.constantFrom('[]', '42', '"x"', 'null', '{"cniVersion":"1.1.0",', '').map((text): Defect => ({
    what: `config ${JSON.stringify(text)}`,
    codes: [6],
    replacesConfig: true,
    apply: (c) => void (c.config = text),
  })),
);

function validCall(netnsPath: string): Call {
  return {
    env: { CNI_CONTAINERID: uniqueName('c'), CNI_IFNAME: 'net1', CNI_NETNS: netnsPath },
    config: {
      cniVersion: '1.1.0',
      name: uniqueName('p'),
      type: 'fabrik-ovs',
      bridge,
      vlan: 100,
      ipam: { type: 'host-local', subnet: '10.251.0.0/16' },
    },
  };
}

async function call(command: string, c: Call): Promise<ExecResult> {
  return execPlugin(sb, command, c.config, {
    containerId: c.env['CNI_CONTAINERID'] ?? '',
    ifname: c.env['CNI_IFNAME'] ?? '',
    netns: c.env['CNI_NETNS'] ?? '',
    ...(c.env['CNI_ARGS'] !== undefined ? { args: c.env['CNI_ARGS'] } : {}),
    timeoutMs: CALL_LIMIT_MS,
  });
}

// A valid attachment: any spec version with CHECK, names at their limits, each kind of port, MTU,
// MAC, CNI_ARGS, and host-local (IPv4 or IPv6, with routes), static or no IPAM.
const networkName = fc
  .tuple(fc.constantFrom(...ALNUM.split('')), stringOf(NAME_CHARS, 0, 94))
  .map(([a, b]) => `${a}${b}`);
const containerId = fc
  .tuple(fc.constantFrom(...ALNUM.split('')), stringOf(NAME_CHARS, 0, 127))
  .map(([a, b]) => `${a}${b}`);
const ifname = stringOf(NAME_CHARS, 1, 15).filter((n) => !['.', '..', 'all', 'default', 'lo'].includes(n));
const vlanId = fc.integer({ min: 1, max: 4094 });
const portKind = fc.oneof(
  fc.record({ vlan: fc.integer({ min: 0, max: 4094 }) }),
  fc.record({
    vlan: fc.integer({ min: 0, max: 4094 }),
    trunk: fc.array(
      fc.oneof(
        vlanId.map((id) => ({ id })),
        fc
          .tuple(vlanId, fc.integer({ min: 0, max: 20 }))
          .map(([a, n]) => ({ minID: a, maxID: Math.min(4094, a + n) })),
      ),
      { minLength: 1, maxLength: 3 },
    ),
  }),
  fc.constant({ networkType: 'bridge' }),
);
const unicastMac = fc
  .uint8Array({ minLength: 6, maxLength: 6 })
  .map((b) => [(b[0]! & 0xfe) | 0x02, ...b.slice(1)].map((x) => x.toString(16).padStart(2, '0')).join(':'));
const route4 = fc.constantFrom('10.240.0.0/16', '192.0.2.0/24', '0.0.0.0/0', '198.51.100.7/32');
const ipam = fc.oneof(
  fc
    .record({
      routes: fc.uniqueArray(route4, { maxLength: 3 }),
      priority: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }),
    })
    .map(({ routes, priority }) => ({
      ipam: {
        type: 'host-local',
        subnet: '10.252.0.0/16',
        gateway: '10.252.0.1',
        routes: routes.map((dst) => ({ dst, ...(priority !== undefined ? { priority } : {}) })),
      },
    })),
  fc.constant({ ipam: { type: 'host-local', subnet: 'fd00:252::/64', routes: [{ dst: 'fd00:253::/64' }] } }),
  fc.integer({ min: 2, max: 250 }).map((host) => ({
    ipam: { type: 'static', addresses: [{ address: `10.253.0.${host}/24`, gateway: '10.253.0.1' }] },
  })),
  fc.integer({ min: 2, max: 250 }).map((host) => ({ runtimeConfig: { ips: [`10.254.0.${host}/24`] } })),
);
const validAttachment = fc.record({
  version: fc.constantFrom('0.4.0', '1.0.0', '1.1.0'),
  name: networkName,
  containerId,
  ifname,
  port: portKind,
  mtu: fc.option(fc.integer({ min: 1280, max: 9000 }), { nil: undefined }),
  mac: fc.option(unicastMac, { nil: undefined }),
  ipam,
  podName: fc.option(stringOf(NAME_CHARS, 1, 63), { nil: undefined }),
});

describe('properties of fabrik-ovs', () => {
  it(
    'hostile input: the spec code, in bounded time, nothing left behind, and DEL succeeds',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(defects, { minLength: 1, maxLength: 3, selector: (d) => d.what }),
          async (found) => {
            const ns = await createTempNetns('fprop-');
            try {
              const c = validCall(ns.path);
              const attachment = { containerId: c.env['CNI_CONTAINERID']!, ifname: c.env['CNI_IFNAME']! };
              for (const d of found.filter((d) => !d.replacesConfig)) d.apply(c);
              for (const d of found.filter((d) => d.replacesConfig)) d.apply(c);
              const probe = {
                attachments: [
                  attachment,
                  { containerId: c.env['CNI_CONTAINERID']!, ifname: c.env['CNI_IFNAME']! },
                ],
                netns: [ns],
              };
              const before = await nodeState(sb, ovs, probe);
              const add = await call('ADD', c);
              const what = found.map((d) => d.what).join(' + ');
              expect(add.code, `${what}: ${add.stderr}`).toBe(1);
              expect(add.out, what).toMatchObject({ msg: expect.any(String) });
              expect(
                found.flatMap((d) => d.codes),
                `${what}: ${JSON.stringify(add.out)}`,
              ).toContain(add.out?.['code']);
              expect(await nodeState(sb, ovs, probe), what).toEqual(before);
              const del = await call('DEL', c);
              expect(del.code, `${what}: DEL ${JSON.stringify(del.out)}`).toBe(0);
              expect(await nodeState(sb, ovs, probe), what).toEqual(before);
            } finally {
              await ns.destroy();
            }
          },
        ),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});

describe('valid attachments', () => {
  it(
    'ADD, CHECK and DEL succeed, the Pod interface is as configured, and DEL leaves the node as it was',
    async () => {
      await fc.assert(
        fc.asyncProperty(validAttachment, async (a) => {
          const ns = await createTempNetns('fprop-');
          try {
            const config: Record<string, unknown> = {
              cniVersion: a.version,
              name: a.name,
              type: 'fabrik-ovs',
              bridge,
              ...a.port,
              ...(a.mtu !== undefined ? { mtu: a.mtu } : {}),
              ...a.ipam,
              ...(a.mac !== undefined ? { args: { cni: { mac: a.mac } } } : {}),
            };
            const c: Call = {
              env: {
                CNI_CONTAINERID: a.containerId,
                CNI_IFNAME: a.ifname,
                CNI_NETNS: ns.path,
                ...(a.podName
                  ? { CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAME=${a.podName};K8S_POD_NAMESPACE=ns1` }
                  : {}),
              },
              config,
            };
            const probe = { attachments: [{ containerId: a.containerId, ifname: a.ifname }], netns: [ns] };
            const before = await nodeState(sb, ovs, probe);
            const add = await call('ADD', c);
            expect(add.code, `ADD ${JSON.stringify(add.out)} ${add.stderr}`).toBe(0);
            const [link] = JSON.parse(await ns.ip('-j', 'link', 'show', 'dev', a.ifname)) as Array<{
              address: string;
              mtu: number;
              flags: string[];
            }>;
            expect(link?.mtu).toBe(a.mtu ?? 1500);
            expect(link?.flags).toContain('UP');
            if (a.mac !== undefined) expect(link?.address).toBe(a.mac);
            const check = await call('CHECK', { ...c, config: { ...config, prevResult: add.out } });
            expect(check.code, `CHECK ${JSON.stringify(check.out)}`).toBe(0);
            const del = await call('DEL', c);
            expect(del.code, `DEL ${JSON.stringify(del.out)}`).toBe(0);
            expect(await nodeState(sb, ovs, probe)).toEqual(before);
          } finally {
            await ns.destroy();
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});
