import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { isCommandError, runCommand } from '@fabrik/netcore';
import { sourceCommand } from '@fabrik/testkit';

// The real executable, started as a process: exit codes and streams as a pipeline sees them.
const cliFile = fileURLToPath(new URL('./cli.ts', import.meta.url));
const fixtures = fileURLToPath(new URL('./__fixtures__/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fabrik-frr-cli-host-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function fabrikFrr(
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  try {
    const [node, ...argv] = sourceCommand(cliFile, ...args);
    const r = await runCommand(node, argv);
    return { code: 0, ...r };
  } catch (e) {
    if (!isCommandError(e)) throw e;
    return { code: e.exitCode, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('fabrik-frr (process)', () => {
  it('renders, then checks the result with vtysh: exit 0', async () => {
    const out = join(dir, 'full.conf');
    expect(
      (await fabrikFrr('render', '--intent', join(fixtures, 'full.input.yaml'), '--out', out)).code,
    ).toBe(0);
    const check = await fabrikFrr('check', out);
    expect(check).toMatchObject({ code: 0, stdout: `${out}: ok\n` });
  });
  it('check exits 1 with FRR message for a rejected file', async () => {
    const file = join(dir, 'bad.conf');
    writeFileSync(file, 'router bgp 65000\n neighbr 192.0.2.2 remote-as 1\nexit\n');
    const r = await fabrikFrr('check', file);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/line 2: % Unknown command/);
  });
  it('exits 2 on an invalid intent', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({
        asn: 65000,
        routerId: '10.0.0.1',
        vtepIp: '10.0.0.1',
        vrfs: [{ name: 'a', vni: 1, import: [{ cidr: '10.0.0.0/8', le: 4 }] }],
      }),
    );
    const r = await fabrikFrr('render', '--intent', file);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('vrfs[0].import[0].le: must be greater than the prefix length 8');
  });
  it('diff prints neither the rendered nor the running BGP password', async () => {
    const running = join(dir, 'running.conf');
    writeFileSync(
      running,
      'Current configuration:\n!\nrouter bgp 65000\n neighbor 192.0.2.2 password runn1ng-secret\nexit\n!\nend\n',
    );
    const r = await fabrikFrr('diff', '--running', running, '--intent', join(fixtures, 'full.input.yaml'));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('- neighbor 192.0.2.2 password <redacted>\n');
    expect(r.stdout).toContain('+ neighbor 192.0.2.2 password <redacted>\n');
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/s3cret|runn1ng-secret/);
  });
});
