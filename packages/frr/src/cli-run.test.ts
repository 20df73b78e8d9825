import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT, normalizeRunningConfig, runFrrCli } from './cli-run.js';

const fixtures = fileURLToPath(new URL('./__fixtures__/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fabrik-frr-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runFrrCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

describe('fabrik-frr (in process)', () => {
  it('render prints the golden configuration of a YAML intent', async () => {
    const r = await cli('render', '--intent', join(fixtures, 'full.input.yaml'), '--hostname', 'fabrik-lab');
    expect(r).toEqual({
      code: EXIT.ok,
      stdout: readFileSync(join(fixtures, 'full.netns.golden.conf'), 'utf8'),
      stderr: '',
    });
  });
  it('render takes JSON, --mode and --out', async () => {
    const out = join(dir, 'out.conf');
    const r = await cli(
      'render',
      '--intent',
      join(fixtures, 'minimal.input.json'),
      '--mode',
      'vrf-ibgp',
      '--hostname',
      'fabrik-lab',
      '--out',
      out,
    );
    expect(r.code).toBe(EXIT.ok);
    expect(r.stdout).toBe('');
    expect(readFileSync(out, 'utf8')).toBe(
      readFileSync(join(fixtures, 'minimal.vrf-ibgp.golden.conf'), 'utf8'),
    );
  });
  it('exits 2 with every path for an invalid intent, and never prints a password', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      'asn: 65000\nrouterId: 10.0.0.1\nvtepIp: 10.0.0.1\nunderlay: { neighbors: [{ remoteAs: external, password: "a b" }] }\nlayer2s: [{ vni: 1, vlan: 5000 }]\n',
    );
    const r = await cli('render', '--intent', file);
    expect(r.code).toBe(EXIT.invalidIntent);
    expect(r.stderr).toContain('underlay.neighbors[0].address: give exactly one of address or interface');
    expect(r.stderr).toContain(
      'underlay.neighbors[0].password: must be 1-80 printable ASCII characters without spaces',
    );
    expect(r.stderr).toContain('layer2s[0].vlan:');
    expect(r.stderr).not.toContain('a b');
  });
  it('exits 2 for a file that is not YAML, 1 for a missing file or a bad option', async () => {
    const file = join(dir, 'broken.yaml');
    writeFileSync(file, 'asn: [\n');
    expect((await cli('render', '--intent', file)).code).toBe(EXIT.invalidIntent);
    expect((await cli('render', '--intent', join(dir, 'missing.yaml'))).code).toBe(EXIT.failure);
    const bad = await cli('render', '--intent', file, '--mode', 'bogus');
    expect(bad.code).toBe(EXIT.failure);
    expect(bad.stderr).toContain('--mode must be one of netns, vrf-ibgp');
    expect((await cli('render')).stderr).toContain('--intent is required');
    expect((await cli('render', '--bogus')).code).toBe(EXIT.failure);
    expect((await cli('frobnicate')).code).toBe(EXIT.failure);
  });
  it('--help works for every command', async () => {
    for (const argv of [
      ['--help'],
      ['render', '--help'],
      ['check', '--help'],
      ['diff', '--help'],
      ['schema', '-h'],
    ]) {
      const r = await cli(...argv);
      expect(r.code).toBe(EXIT.ok);
      expect(r.stdout).toMatch(/fabrik-frr/);
    }
  });
  it('schema prints the JSON Schema of the intent', async () => {
    const r = await cli('schema');
    expect(r.code).toBe(EXIT.ok);
    const schema = JSON.parse(r.stdout) as { $schema: string; properties: Record<string, unknown> };
    expect(schema.$schema).toMatch(/json-schema/);
    expect(schema.properties).toHaveProperty('vrfs');
  });
  it('diff compares a saved running-config with the rendered intent', async () => {
    const rendered = readFileSync(join(fixtures, 'minimal.netns.golden.conf'), 'utf8');
    const running = join(dir, 'running.conf');
    const asShown = rendered
      .replace('frr defaults datacenter\n', 'frr version 8.4.4\nfrr defaults datacenter\n')
      .replace(' no bgp default ipv4-unicast\n', '');
    writeFileSync(running, `Building configuration...\n\nCurrent configuration:\n!\n${asShown}end\n`);
    const r = await cli(
      'diff',
      '--running',
      running,
      '--intent',
      join(fixtures, 'minimal.input.json'),
      '--hostname',
      'fabrik-lab',
    );
    expect(r.code).toBe(EXIT.ok);
    expect(r.stdout).toMatch(/^--- .*running\.conf\n\+\+\+ rendered from .*minimal\.input\.json\n@@ /);
    expect(r.stdout.split('\n').filter((l) => /^[-+][^-+]/.test(l))).toEqual([
      '+ no bgp default ipv4-unicast',
    ]);
  });
  it('diff never prints a BGP password: not in changed lines, not in context lines', async () => {
    const rendered = readFileSync(join(fixtures, 'full.netns.golden.conf'), 'utf8');
    expect(rendered).toContain(' neighbor 192.0.2.2 password s3cret\n');
    const running = join(dir, 'running-secret.conf');
    // The running password differs, and a line next to it too: both secrets would be printed.
    writeFileSync(
      running,
      rendered
        .replace('password s3cret', 'password 0ld-s3cret')
        .replace(' no bgp default ipv4-unicast\n', ''),
    );
    const r = await cli(
      'diff',
      '--running',
      running,
      '--intent',
      join(fixtures, 'full.input.yaml'),
      '--hostname',
      'fabrik-lab',
    );
    expect(r.code).toBe(EXIT.ok);
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/s3cret/);
    expect(r.stdout).toContain('- neighbor 192.0.2.2 password <redacted>\n');
    expect(r.stdout).toContain('+ neighbor 192.0.2.2 password <redacted>\n');
  });
  it('normalizeRunningConfig drops what vtysh adds around the configuration', () => {
    expect(
      normalizeRunningConfig(
        'Building configuration...\n\nCurrent configuration:\n!\nfrr version 8.4.4\nfrr defaults datacenter\nhostname x\nservice integrated-vtysh-config\n!\nend\n',
      ),
    ).toBe('frr defaults datacenter\nhostname x\n!\n');
  });
});
