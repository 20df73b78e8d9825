// Test helpers for fabrik-ipam: a private build of the bundle in a CNI bin directory, the node
// settings file pointing at a test API server, the plugin executed directly and through libcni's
// cnitool, and the IPPools as the API server stores them.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IpPool, type IpPoolSpec } from '@fabrik/api';
import { IPPOOLS } from '@fabrik/ippool';
import { customObjects, loadKubeConfig, type CustomObjects } from '@fabrik/kube';
import {
  DEBIAN_CNI_DIR,
  cnitool,
  execCniPlugin,
  startKubeApiServer,
  type KubeApiServer,
  type CniExecOptions,
  type CniExecResult,
} from '@fabrik/testkit';
import { stringify } from 'yaml';
import { bundlePlugin } from '../scripts/bundle.js';

export interface IpamSandbox {
  readonly dir: string;
  /** A CNI bin directory with the bundled fabrik-ipam. */
  readonly binDir: string;
  readonly plugin: string;
  /** binDir, then Debian's plugins (bridge, host-local). */
  readonly cniPath: string;
  /** NETCONFPATH for cnitool. */
  readonly confDir: string;
  readonly cnitoolCache: string;
  /** The node settings file (FABRIK_CNI_CONFIG): ipam.kubeconfig is the test API server's. */
  readonly settingsPath: string;
  /** The environment every plugin call gets: the settings file and a private code cache. */
  readonly env: Readonly<Record<string, string>>;
  readonly server: KubeApiServer;
  /** IPPools as stored, without going through the plugin. */
  readonly pools: CustomObjects<IpPool>;
  remove(): Promise<void>;
}

/** Bundles the plugin into a private directory and starts a test API server (deploy/crds loaded). */
export async function createIpamSandbox(): Promise<IpamSandbox> {
  const dir = await mkdtemp(join(tmpdir(), 'fabrik-ipam-'));
  const binDir = join(dir, 'bin');
  await mkdir(binDir);
  const plugin = join(binDir, 'fabrik-ipam');
  const [server] = await Promise.all([
    startKubeApiServer({ dir: join(dir, 'apiserver') }),
    bundlePlugin(plugin),
  ]);
  const settingsPath = join(dir, 'fabrik.d', 'config.yaml');
  const confDir = join(dir, 'net.d');
  await mkdir(join(dir, 'fabrik.d'));
  await mkdir(confDir);
  // Generous: test files run side by side on a 2-core machine.
  await writeFile(
    settingsPath,
    stringify({ ipam: { kubeconfig: server.kubeconfigPath, timeoutMs: 60_000 } }),
  );
  return {
    dir,
    binDir,
    plugin,
    cniPath: `${binDir}:${DEBIAN_CNI_DIR}`,
    confDir,
    cnitoolCache: join(dir, 'cnitool-cache'),
    settingsPath,
    env: { FABRIK_CNI_CONFIG: settingsPath, FABRIK_IPAM_CODE_CACHE_DIR: join(dir, 'code-cache') },
    server,
    pools: customObjects(loadKubeConfig({ kubeconfig: server.kubeconfigPath }).kc, IPPOOLS, IpPool),
    remove: async () => {
      await server.destroy();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Creates an IPPool. */
export async function createPool(sb: IpamSandbox, name: string, spec: IpPoolSpec): Promise<void> {
  await sb.pools.create({
    apiVersion: 'network.fabrik.dev/v1alpha1',
    kind: 'IPPool',
    metadata: { name },
    spec,
  });
}

/** CNI_ARGS of Pod `pod-<i>` in `default`, as the kubelet passes them. */
export const podArgs = (i: number | string): string =>
  `IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=pod-${i};K8S_POD_INFRA_CONTAINER_ID=c${i}`;

/** A network config that delegates to fabrik-ipam (the `ipam` section is what it reads). */
export function ipamConf(
  name: string,
  ipam: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { cniVersion: '1.1.0', name, type: 'fabrik-ipam', ipam: { type: 'fabrik-ipam', ...ipam }, ...extra };
}

/** Executes fabrik-ipam directly, as a runtime or a main plugin would. */
export function execIpam(
  sb: IpamSandbox,
  command: string,
  conf: unknown,
  opts: Omit<CniExecOptions, 'path'> = {},
): Promise<CniExecResult> {
  return execCniPlugin(sb.plugin, command, conf, {
    ...opts,
    path: sb.cniPath,
    env: { ...sb.env, ...opts.env },
  });
}

/** Writes `<name>.conflist` (cniVersion 1.0.0, libcni 1.1's newest) with these plugins. */
export async function writeConflist(
  sb: IpamSandbox,
  name: string,
  plugins: ReadonlyArray<Record<string, unknown>>,
): Promise<void> {
  await writeFile(
    join(sb.confDir, `${name}.conflist`),
    JSON.stringify({ cniVersion: '1.0.0', name, plugins }),
  );
}

/**
 * Runs libcni's cnitool; resolves with ADD's result, rejects with the CommandError. Killed after
 * 5 minutes: dozens of them at once on a loaded 2-core machine take long.
 */
export function cnitoolIpam(
  sb: IpamSandbox,
  verb: 'add' | 'check' | 'del',
  net: string,
  netnsPath: string,
  opts: { ifname?: string; args?: string; capArgs?: unknown } = {},
): Promise<string> {
  return cnitool(verb, net, netnsPath, {
    ...opts,
    confDir: sb.confDir,
    path: sb.cniPath,
    cacheDir: sb.cnitoolCache,
    env: sb.env,
    timeoutMs: 300_000,
  });
}
