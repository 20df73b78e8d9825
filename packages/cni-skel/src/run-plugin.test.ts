import { describe, expect, it } from 'vitest';
import { jsonDepth, runPlugin, type PluginFuncs, type CmdArgs } from './run-plugin.js';
import { CniError } from './errors.js';
import { SPEC_VERSIONS } from './versions.js';

const env = (command: string, extra: Record<string, string> = {}) => ({
  CNI_COMMAND: command,
  CNI_CONTAINERID: 'c1',
  CNI_NETNS: '/run/netns/x',
  CNI_IFNAME: 'net1',
  CNI_PATH: '/opt/cni/bin:/usr/lib/cni',
  ...extra,
});

function harness(funcs: Partial<PluginFuncs> = {}) {
  const calls: CmdArgs[] = [];
  const record = async (a: CmdArgs) => {
    calls.push(a);
  };
  const all: PluginFuncs = {
    add: async (a) => {
      calls.push(a);
      return {
        interfaces: [{ name: 'net1', mac: '02:00:00:00:00:01', mtu: 1400, sandbox: a.netns }],
        ips: [{ address: '10.0.0.2/24', gateway: '10.0.0.1', interface: 0 }],
        routes: [{ dst: '0.0.0.0/0', priority: 5 }],
        fabrik: { vlan: 120 },
      };
    },
    del: record,
    check: record,
    gc: record,
    status: record,
    ...funcs,
  };
  const run = async (e: Record<string, string | undefined>, stdin: string) => {
    let out = '';
    const code = await runPlugin(all, {}, { env: e, stdin, stdout: (t) => (out += t) });
    return { code, out: out ? (JSON.parse(out) as Record<string, unknown>) : undefined };
  };
  return { run, calls };
}

describe('runPlugin', () => {
  it('answers VERSION with every supported version and the requested one', async () => {
    const { run } = harness();
    const r = await run({ CNI_COMMAND: 'VERSION' }, '{"cniVersion":"0.4.0"}');
    expect(r).toEqual({ code: 0, out: { cniVersion: '0.4.0', supportedVersions: [...SPEC_VERSIONS] } });
  });

  it.each(['CNI_CONTAINERID', 'CNI_NETNS', 'CNI_IFNAME', 'CNI_PATH'])(
    'fails ADD with code 4 naming a missing %s',
    async (name) => {
      const { run, calls } = harness();
      const r = await run(
        { ...env('ADD'), [name]: undefined },
        '{"cniVersion":"1.0.0","name":"n","type":"t"}',
      );
      expect(r.code).toBe(1);
      expect(r.out).toMatchObject({ cniVersion: '1.0.0', code: 4 });
      expect(String(r.out?.['msg'])).toContain(name);
      expect(calls).toHaveLength(0);
    },
  );

  it('lets DEL run without CNI_NETNS', async () => {
    const { run, calls } = harness();
    const r = await run({ ...env('DEL'), CNI_NETNS: '' }, '{"cniVersion":"1.1.0","name":"n","type":"t"}');
    expect(r.code).toBe(0);
    expect(calls[0]?.netns).toBe('');
  });

  it('rejects an undecodable config with code 6', async () => {
    const { run } = harness();
    const r = await run(env('ADD'), '{"cniVersion":');
    expect(r.out).toMatchObject({ code: 6 });
  });

  it('rejects an unsupported version with code 1', async () => {
    const { run } = harness();
    expect((await run(env('ADD'), '{"cniVersion":"0.2.0","name":"n"}')).out).toMatchObject({ code: 1 });
  });

  it('picks the newest common version of cniVersions', async () => {
    const { run, calls } = harness();
    await run(env('DEL'), '{"cniVersions":["0.4.0","1.0.0","9.9.9"],"name":"n"}');
    expect(calls[0]?.cniVersion).toBe('1.0.0');
  });

  it('refuses CHECK before 0.4.0 and GC/STATUS before 1.1.0', async () => {
    const { run, calls } = harness();
    expect((await run(env('CHECK'), '{"cniVersion":"0.3.1","name":"n"}')).out).toMatchObject({ code: 1 });
    expect((await run(env('GC'), '{"cniVersion":"1.0.0","name":"n"}')).out).toMatchObject({ code: 1 });
    expect((await run(env('STATUS'), '{"cniVersion":"1.0.0","name":"n"}')).out).toMatchObject({ code: 1 });
    expect(calls).toHaveLength(0);
  });

  it('rejects an invalid CNI_IFNAME and CNI_CONTAINERID with code 4', async () => {
    const { run } = harness();
    expect((await run(env('ADD', { CNI_IFNAME: 'a/b' }), '{"cniVersion":"1.0.0"}')).out).toMatchObject({
      code: 4,
    });
    expect((await run(env('ADD', { CNI_CONTAINERID: '-x' }), '{"cniVersion":"1.0.0"}')).out).toMatchObject({
      code: 4,
    });
  });

  it.each([
    ['CNI_IFNAME', 'é'.repeat(8)],
    ['CNI_IFNAME', 'net%d'],
    ['CNI_IFNAME', 'a@b'],
    ['CNI_IFNAME', 'all'],
    ['CNI_IFNAME', 'default'],
    ['CNI_IFNAME', 'lo'],
    ['CNI_IFNAME', 'a'.repeat(16)],
    ['CNI_CONTAINERID', 'c'.repeat(129)],
  ])('refuses %s %j with code 4 naming it, before the plugin runs', async (name, value) => {
    const { run, calls } = harness();
    const r = await run(env('ADD', { [name]: value }), '{"cniVersion":"1.0.0"}');
    expect(r.out).toMatchObject({ code: 4 });
    expect(String(r.out?.['msg'])).toContain(name);
    expect(calls).toHaveLength(0);
  });

  it('accepts a container id of 128 characters and a 15-character ifname', async () => {
    const { run, calls } = harness();
    const r = await run(
      env('DEL', { CNI_CONTAINERID: 'c'.repeat(128), CNI_IFNAME: 'a'.repeat(15) }),
      '{"cniVersion":"1.0.0"}',
    );
    expect(r.code).toBe(0);
    expect(calls).toHaveLength(1);
  });

  it('refuses a config nested deeper than 64 with code 6, whatever its depth', async () => {
    const { run } = harness();
    const deep = (n: number) => `{"cniVersion":"1.0.0","x":${'['.repeat(n)}${']'.repeat(n)}}`;
    expect((await run(env('ADD'), deep(63))).code).toBe(0);
    for (const n of [64, 100_000]) {
      const r = await run(env('ADD'), deep(n));
      expect(r.out).toMatchObject({ code: 6 });
      expect(String(r.out?.['msg'])).toContain(`nested ${n + 1} levels deep`);
    }
  });

  it.each([
    ['a missing CNI_CONTAINERID', { CNI_CONTAINERID: undefined }, '{"cniVersion":"1.0.0"}'],
    ['an invalid CNI_IFNAME', { CNI_IFNAME: 'all' }, '{"cniVersion":"1.0.0"}'],
    ['a long container id', { CNI_CONTAINERID: 'c'.repeat(300) }, '{"cniVersion":"1.0.0"}'],
    ['an undecodable config', {}, '{"cniVersion":'],
    ['an unsupported version', {}, '{"cniVersion":"0.2.0"}'],
  ])(
    'DEL with %s succeeds without calling the plugin: ADD refuses it, so nothing was created',
    async (_w, patch, stdin) => {
      const { run, calls } = harness();
      const r = await run({ ...env('DEL'), ...patch }, stdin);
      expect(r).toEqual({ code: 0, out: undefined });
      expect(calls).toHaveLength(0);
    },
  );

  it('prints a CniError with its code and details', async () => {
    const { run } = harness({
      add: async () => {
        throw new CniError(11, 'later', 'db down');
      },
    });
    expect((await run(env('ADD'), '{"cniVersion":"1.1.0"}')).out).toEqual({
      cniVersion: '1.1.0',
      code: 11,
      msg: 'later',
      details: 'db down',
    });
  });

  it.each(SPEC_VERSIONS)('[%s] writes the ADD result in that version', async (v) => {
    const { run } = harness();
    const r = await run(env('ADD'), JSON.stringify({ cniVersion: v, name: 'n' }));
    expect(r.out?.['cniVersion']).toBe(v);
    const ip = (r.out?.['ips'] as Array<Record<string, unknown>>)[0];
    const iface = (r.out?.['interfaces'] as Array<Record<string, unknown>>)[0];
    const route = (r.out?.['routes'] as Array<Record<string, unknown>>)[0];
    expect(ip?.['version']).toBe(v.startsWith('0.') ? '4' : undefined);
    expect(iface?.['mtu']).toBe(v === '1.1.0' ? 1400 : undefined);
    expect(route?.['priority']).toBe(v === '1.1.0' ? 5 : undefined);
    expect(ip?.['interface']).toBe(0);
    expect(r.out?.['fabrik']).toEqual({ vlan: 120 });
  });
});

describe('jsonDepth', () => {
  it.each([
    ['{}', 1],
    ['{"a":[{"b":1}]}', 3],
    ['"[[[["', 0],
    ['{"a":"\\"[[["}', 1],
    ['[[],[[]]]', 3],
  ])('%s is %i deep', (text, depth) => {
    expect(jsonDepth(text)).toBe(depth);
  });
});
