import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  InstallInputError,
  apiServerUrl,
  applyNodeInstall,
  parseInstallNodeArgs,
  planNodeInstall,
  readInstallInputs,
  withInterpreter,
  type InstallNodeOptions,
} from './install-node.js';

let dir: string;
let options: InstallNodeOptions;
const env = { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' };

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fabrik-install-node-'));
  for (const d of ['host', 'plugins', 'sa']) await mkdir(join(dir, d));
  await writeFile(join(dir, 'plugins', 'fabrik-ovs'), '#!/usr/bin/env node\nconsole.log(1)\n');
  await writeFile(join(dir, 'plugins', 'fabrik-ipam'), '#!/usr/bin/env node\nconsole.log(2)\n');
  await mkdir(join(dir, 'plugins', 'node_modules', 'koffi'), { recursive: true });
  await writeFile(join(dir, 'plugins', 'node_modules', 'koffi', 'index.cjs'), 'module.exports = {};\n');
  await writeFile(join(dir, 'settings.yaml'), 'cacheDir: /var/lib/cni/fabrik-ovs\n');
  await writeFile(
    join(dir, 'agent-host.yaml'),
    'secondaryNetwork:\n  ovsBridges:\n    - bridgeName: br-sec\n',
  );
  await writeFile(join(dir, 'sa', 'token'), 'tok.en-1\n');
  await writeFile(join(dir, 'sa', 'ca.crt'), '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n');
  await writeFile(join(dir, 'node'), 'ELF');
  options = parseInstallNodeArgs(
    [
      `--host-root=${join(dir, 'host')}`,
      '--plugins-dir',
      join(dir, 'plugins'),
      `--settings=${join(dir, 'settings.yaml')}`,
      `--agent-host-config=${join(dir, 'agent-host.yaml')}`,
      `--service-account-kubeconfig=${join(dir, 'sa')}`,
      '--with-node',
    ],
    '/self/fabrik-ovs',
  ) as InstallNodeOptions;
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function tree(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(root, { withFileTypes: true, recursive: true }))
    if (e.isFile()) out.push(join(e.parentPath, e.name).slice(root.length));
  return out.sort();
}

describe('install-node', () => {
  it('writes the plugins with node as their interpreter, the settings, the bridge config and the kubeconfig', async () => {
    const files = planNodeInstall(await readInstallInputs(options, env, join(dir, 'node')));
    const written = await applyNodeInstall(files, join(dir, 'host'), new Set());
    expect(await tree(join(dir, 'host'))).toEqual([
      '/etc/cni/net.d/fabrik.d/config.yaml',
      '/etc/cni/net.d/fabrik.d/fabrik-ipam.kubeconfig',
      '/etc/fabrik/agent-host.yaml',
      '/opt/cni/bin/fabrik-ipam',
      '/opt/cni/bin/fabrik-node',
      '/opt/cni/bin/fabrik-ovs',
      '/opt/cni/bin/node_modules/koffi/index.cjs',
    ]);
    expect(written.indexOf('/opt/cni/bin/node_modules/koffi/index.cjs')).toBeLessThan(
      written.indexOf('/opt/cni/bin/fabrik-ovs'),
    );
    expect(written.at(-1)).toBe('/etc/cni/net.d/fabrik.d/config.yaml');
    const host = (p: string) => join(dir, 'host', p);
    expect(await readFile(host('opt/cni/bin/fabrik-ovs'), 'utf8')).toBe(
      '#!/opt/cni/bin/fabrik-node\nconsole.log(1)\n',
    );
    expect((await stat(host('opt/cni/bin/fabrik-ovs'))).mode & 0o777).toBe(0o755);
    expect((await stat(host('opt/cni/bin/fabrik-node'))).mode & 0o777).toBe(0o755);
    const kubeconfig = parse(
      await readFile(host('etc/cni/net.d/fabrik.d/fabrik-ipam.kubeconfig'), 'utf8'),
    ) as {
      clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
      users: { user: { token: string } }[];
    };
    expect((await stat(host('etc/cni/net.d/fabrik.d/fabrik-ipam.kubeconfig'))).mode & 0o777).toBe(0o600);
    expect(kubeconfig.clusters[0]?.cluster.server).toBe('https://[fd00::1]:443');
    expect(
      Buffer.from(kubeconfig.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString(),
    ).toContain('BEGIN CERTIFICATE');
    expect(kubeconfig.users[0]?.user.token).toBe('tok.en-1');
  });

  it('a second pass writes only what changed (a rotated token)', async () => {
    const copied = new Set<string>();
    await applyNodeInstall(
      planNodeInstall(await readInstallInputs(options, env, join(dir, 'node'))),
      join(dir, 'host'),
      copied,
    );
    await writeFile(join(dir, 'sa', 'token'), 'rotated\n');
    const again = await applyNodeInstall(
      planNodeInstall(await readInstallInputs(options, env, join(dir, 'node'))),
      join(dir, 'host'),
      copied,
    );
    expect(again).toEqual(['/etc/cni/net.d/fabrik.d/fabrik-ipam.kubeconfig']);
  });

  it('refuses invalid settings naming the field, before writing anything', async () => {
    await writeFile(join(dir, 'settings.yaml'), 'timeouts:\n  ovsdbTimeoutMs: 5\n');
    await expect(readInstallInputs(options, env, join(dir, 'node'))).rejects.toThrow(
      /settings\.yaml: timeouts\.ovsdbTimeoutMs: /,
    );
    await writeFile(join(dir, 'settings.yaml'), '{}\n');
    await writeFile(
      join(dir, 'agent-host.yaml'),
      'secondaryNetwork:\n  ovsBridges:\n    - bridgeName: this-name-is-too-long\n',
    );
    await expect(readInstallInputs(options, env, join(dir, 'node'))).rejects.toThrow(
      /agent-host\.yaml: secondaryNetwork\.ovsBridges\[0\]\.bridgeName/,
    );
    await writeFile(join(dir, 'agent-host.yaml'), '{}\n');
    await expect(readInstallInputs(options, {}, join(dir, 'node'))).rejects.toThrow(
      /KUBERNETES_SERVICE_HOST/,
    );
    expect(await tree(join(dir, 'host'))).toEqual([]);
  });

  it('options: absolute paths only, unknown flags refused, --version', () => {
    expect(() => parseInstallNodeArgs(['--host-root', 'rel'], '/x')).toThrow(InstallInputError);
    expect(() => parseInstallNodeArgs(['--hostroot=/x'], '/x')).toThrow(/unknown argument/);
    expect(parseInstallNodeArgs(['--version'], '/x')).toBe('version');
    expect(parseInstallNodeArgs([], '/opt/fabrik/cni/plugins/fabrik-ovs')).toMatchObject({
      hostRoot: '/',
      cniBinDir: '/opt/cni/bin',
      pluginsDir: '/opt/fabrik/cni/plugins',
    });
  });

  it('interpreter lines and server URLs', () => {
    expect(Buffer.from(withInterpreter(Buffer.from('#!/usr/bin/env node\nx'), '/b/n')).toString()).toBe(
      '#!/b/n\nx',
    );
    expect(Buffer.from(withInterpreter(Buffer.from('x'), '/b/n')).toString()).toBe('x');
    expect(apiServerUrl('10.0.0.1', '6443')).toBe('https://10.0.0.1:6443');
  });
});
