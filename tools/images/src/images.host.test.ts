// The images as a node runs them, with podman (runc, cgroupfs) and the DaemonSets' security
// settings (read-only root, every capability dropped but the ones deploy/ grants). The images are
// built by ensureImages() unless this revision's are already there (same build context: reused).
import { copyFile, mkdir, mkdtemp, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { formatRelayFile } from '@fabrik/agent-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { KubeConfig } from '@kubernetes/client-node';
import { IP_POOL_RESOURCE } from '@fabrik/api';
import { callAgent, FAST_PATH_PROTOCOL_VERSION } from '@fabrik/cni-skel';
import { customObjects, isNotFoundError } from '@fabrik/kube';
import { isCommandError, runCommand, startCommand } from '@fabrik/netcore';
import {
  createTempNetns,
  startKubeApiServer,
  startOvs,
  type KubeApiServer,
  type OvsInstance,
  type TempNetns,
} from '@fabrik/testkit';
import { REPO_ROOT, WORK_DIR, ensureImages, notBuildable, type BuiltImage } from './build.js';
import { IMAGES } from './catalogue.js';
import { podmanRunEnv } from './podman.js';

const built = new Map<string, BuiltImage>();
let env: NodeJS.ProcessEnv;
let dir: string;

// Whether each image can be built from this checkout (its app may not have landed yet).
const unbuildable = new Map<string, string | undefined>();
for (const spec of IMAGES) unbuildable.set(spec.name, await notBuildable(spec));
const title = (name: string): string => {
  const reason = unbuildable.get(name);
  return reason === undefined ? name : `${name} (not built from this checkout: ${reason})`;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fabrik-images-'));
  env = await podmanRunEnv(join(WORK_DIR, 'podman'));
  const t0 = Date.now();
  const { images } = await ensureImages({ log: (l) => console.log(`images: ${l}`) });
  console.log(`images ready in ${Math.round((Date.now() - t0) / 1000)} s`);
  for (const image of images) built.set(image.name, image);
}, 1_800_000);

afterAll(() => rm(dir, { recursive: true, force: true }));

const image = (name: string): string => built.get(name)!.tags[0]!;

/** `podman run --rm` with the DaemonSets' hardening; resolves with stdout, rejects with CommandError. */
async function run(
  name: string,
  podmanArgs: string[],
  args: string[],
  capabilities: string[] = [],
  options: { readOnlyRoot?: boolean; keep?: boolean } = {},
) {
  return runCommand(
    'podman',
    [
      'run',
      ...(options.keep ? [] : ['--rm']),
      ...(options.readOnlyRoot === false ? [] : ['--read-only']),
      '--cap-drop=ALL',
      ...capabilities.map((c) => `--cap-add=${c}`),
      '--security-opt=no-new-privileges',
      ...podmanArgs,
      image(name),
      ...args,
    ],
    { env, timeoutMs: 120_000 },
  );
}

it('every image is tagged <version>-g<revision> and <version>, and reported with its size', () => {
  for (const b of built.values()) {
    expect(b.tags[0]).toMatch(
      new RegExp(`^localhost/fabrik/${b.name}:\\d+\\.\\d+\\.\\d+-g[0-9a-f]{12}(-dirty)?$`),
    );
    expect(b.tags[1]).toBe(b.tags[0]!.replace(/-g[0-9a-f]{12}(-dirty)?$/, ''));
    expect(b.sizeBytes).toBeGreaterThan(50e6);
    console.log(`${b.tags[0]}: ${(b.sizeBytes / 1e6).toFixed(1)} MB`);
  }
});

describe.skipIf(unbuildable.get('fabrik-cni') !== undefined)(title('fabrik-cni'), () => {
  let api: KubeApiServer;
  beforeAll(async () => {
    api = await startKubeApiServer({ dir: join(dir, 'api') });
    // fabrik as installed: the namespace, fabrik-cni's ServiceAccount and what RBAC grants it.
    await api.kubectl('apply', '-k', join(REPO_ROOT, 'deploy/base'));
  }, 120_000);
  afterAll(() => api?.destroy());

  it('answers --version', async () => {
    expect((await run('fabrik-cni', [], ['--version'])).stdout.trim()).toMatch(/^fabrik-cni \d+\.\d+\.\d+$/);
  });

  it('installs the plugins (atomically, over a running one), Node.js, the settings, the bridge config and a working kubeconfig into the host', async () => {
    const host = join(dir, 'host');
    const sa = join(dir, 'sa');
    await mkdir(host);
    await mkdir(sa);
    const token = await api.createServiceAccountToken('fabrik-system', 'fabrik-cni');
    await writeFile(join(sa, 'token'), token);
    const kubeconfig = parse(await readFile(api.kubeconfigPath, 'utf8')) as {
      clusters: { cluster: { 'certificate-authority-data': string } }[];
    };
    await writeFile(
      join(sa, 'ca.crt'),
      Buffer.from(kubeconfig.clusters[0]!.cluster['certificate-authority-data'], 'base64'),
    );
    const port = new URL(api.url).port;
    // deploy/base's readiness probe, run in the image with the host mounted as the DaemonSet
    // mounts it: not ready before the install, ready after.
    const probe = async () =>
      run('fabrik-cni', ['-v', `${host}:/host`, '--entrypoint', readiness[0]!], readiness.slice(1)).then(
        () => 'ready',
        (e: unknown) => {
          if (isCommandError(e) && e.exitCode === 1) return 'not ready';
          throw e;
        },
      );
    const readiness = (
      parse(await readFile(join(REPO_ROOT, 'deploy/base/cni.yaml'), 'utf8')) as {
        spec: { template: { spec: { containers: { readinessProbe: { exec: { command: string[] } } }[] } } };
      }
    ).spec.template.spec.containers[0]!.readinessProbe.exec.command;
    expect(await probe()).toBe('not ready');
    // An older fabrik-ovs is on the node and running (a CNI ADD in flight): a plugin written in
    // place would fail (ETXTBSY) or be seen half-written; replaced by rename, the running one keeps
    // its file and the next run gets the new one.
    await mkdir(join(host, 'opt/cni/bin'), { recursive: true });
    await copyFile('/bin/sleep', join(host, 'opt/cni/bin/fabrik-ovs'));
    const inFlight = startCommand(join(host, 'opt/cni/bin/fabrik-ovs'), ['600']);
    const oldInode = (await stat(join(host, 'opt/cni/bin/fabrik-ovs'))).ino;
    const { stdout } = await run(
      'fabrik-cni',
      [
        '-v',
        `${host}:/host`,
        '-v',
        `${join(REPO_ROOT, 'deploy/base/config/cni-settings.yaml')}:/etc/fabrik/cni/config.yaml:ro`,
        '-v',
        `${join(REPO_ROOT, 'deploy/base/config/agent-host.yaml')}:/etc/fabrik/agent-host/agent-host.yaml:ro`,
        '-v',
        `${sa}:/var/run/secrets/kubernetes.io/serviceaccount:ro`,
        '-e',
        'KUBERNETES_SERVICE_HOST=127.0.0.1',
        '-e',
        `KUBERNETES_SERVICE_PORT=${port}`,
      ],
      [
        '--host-root=/host',
        '--settings=/etc/fabrik/cni/config.yaml',
        '--agent-host-config=/etc/fabrik/agent-host/agent-host.yaml',
        '--service-account-kubeconfig',
        '--with-node',
      ],
    );
    expect(stdout).toContain('node installed under /host');
    const at = (p: string) => join(host, p);
    try {
      expect((await stat(at('opt/cni/bin/fabrik-ovs'))).ino).not.toBe(oldInode);
      expect(await readlink(`/proc/${inFlight.pid}/exe`)).toBe(`${at('opt/cni/bin/fabrik-ovs')} (deleted)`);
    } finally {
      inFlight.kill('SIGKILL');
      await inFlight.exited;
    }
    expect(await probe()).toBe('ready');
    // Every file is where it belongs and no temporary file is left behind.
    const installed = (await runCommand('find', [host, '-type', 'f', '-printf', '%P\\n'])).stdout.split('\n');
    // The plugins' node_modules (koffi and this platform's native binary) beside them.
    expect(installed).toContain('opt/cni/bin/node_modules/koffi/package.json');
    expect(installed.filter((f) => !f.startsWith('opt/cni/bin/node_modules/')).sort()).toEqual([
      '',
      'etc/cni/net.d/fabrik.d/config.yaml',
      'etc/cni/net.d/fabrik.d/fabrik-ipam.kubeconfig',
      'etc/fabrik/agent-host.yaml',
      'opt/cni/bin/fabrik-ipam',
      'opt/cni/bin/fabrik-node',
      'opt/cni/bin/fabrik-ovs',
    ]);
    for (const plugin of ['fabrik-ovs', 'fabrik-ipam', 'fabrik-node'])
      expect((await stat(at(`opt/cni/bin/${plugin}`))).mode & 0o777).toBe(0o755);
    for (const plugin of ['fabrik-ovs', 'fabrik-ipam'])
      expect((await readFile(at(`opt/cni/bin/${plugin}`), 'utf8')).split('\n')[0], plugin).toBe(
        '#!/opt/cni/bin/fabrik-node',
      );
    expect(await readFile(at('etc/cni/net.d/fabrik.d/config.yaml'), 'utf8')).toBe(
      await readFile(join(REPO_ROOT, 'deploy/base/config/cni-settings.yaml'), 'utf8'),
    );
    expect(await readFile(at('etc/fabrik/agent-host.yaml'), 'utf8')).toBe(
      await readFile(join(REPO_ROOT, 'deploy/base/config/agent-host.yaml'), 'utf8'),
    );
    // The installed Node.js runs the installed plugins on this host.
    for (const plugin of ['fabrik-ovs', 'fabrik-ipam']) {
      const version = await runCommand(at('opt/cni/bin/fabrik-node'), [at(`opt/cni/bin/${plugin}`)], {
        env: { CNI_COMMAND: 'VERSION', FABRIK_OVS_CODE_CACHE_DIR: 'off', FABRIK_IPAM_CODE_CACHE_DIR: 'off' },
      });
      expect(JSON.parse(version.stdout), plugin).toMatchObject({
        supportedVersions: expect.arrayContaining(['1.1.0']),
      });
    }
    // fabrik-ipam's kubeconfig authenticates as the ServiceAccount (404 for a missing pool, not 401).
    const kubeconfigPath = at('etc/cni/net.d/fabrik.d/fabrik-ipam.kubeconfig');
    expect((await stat(kubeconfigPath)).mode & 0o777).toBe(0o600);
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfigPath);
    const { group, version: v, plural } = IP_POOL_RESOURCE;
    const error = await customObjects(kc, { group, version: v, plural }, { parse: (x: unknown) => x })
      .get('missing')
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isNotFoundError(error), String(error)).toBe(true);
  });

  it('refuses invalid settings naming the field and writes nothing', async () => {
    const host = join(dir, 'host-bad');
    await mkdir(host);
    await writeFile(join(dir, 'bad.yaml'), 'timeouts:\n  ovsdbTimeoutMs: 1\n');
    const error = await run(
      'fabrik-cni',
      ['-v', `${host}:/host`, '-v', `${join(dir, 'bad.yaml')}:/settings.yaml:ro`],
      ['--host-root=/host', '--settings=/settings.yaml'],
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isCommandError(error) && error.exitCode).toBe(2);
    expect(isCommandError(error) && error.stderr).toMatch(/timeouts\.ovsdbTimeoutMs/);
    expect((await runCommand('find', [host, '-mindepth', '1'])).stdout).toBe('');
  });
});

describe.skipIf(unbuildable.get('fabrik-agent-host') !== undefined)(title('fabrik-agent-host'), () => {
  let node: TempNetns;
  let ovs: OvsInstance;
  beforeAll(async () => {
    node = await createTempNetns('imgah');
    ovs = await startOvs({ netns: node.name });
  });
  afterAll(async () => {
    await ovs?.stop();
    await node?.destroy();
  });

  it('answers --version', async () => {
    expect((await run('fabrik-agent-host', [], ['--version'])).stdout).toMatch(/\d+\.\d+\.\d+/);
  });

  it("runs as its DaemonSet runs it on the node's OVSDB socket, serves a Pod's ADD and DEL on its CNI socket, and the uninstall's cleanup removes its bridge", async () => {
    // deploy/base's config with a file source and no trunk; a throwaway netns stands for the
    // node's network and a private Open vSwitch for the node's, its socket directory mounted where
    // the DaemonSet mounts the node's. The DaemonSet's capabilities, its CNI socket directory and
    // /run/netns; the node settings file and cacheDir at the same path in the pod as on the node,
    // as the DaemonSet mounts /etc/cni/net.d and /var/lib/cni.
    const conf = join(dir, 'agent-host');
    const cni = join(dir, 'agent-host-cni');
    await mkdir(conf, { recursive: true });
    for (const d of ['socket', 'net.d', 'state']) await mkdir(join(cni, d), { recursive: true });
    const config = parse(
      await readFile(join(REPO_ROOT, 'deploy/base/config/agent-host.yaml'), 'utf8'),
    ) as Record<string, unknown>;
    delete config['trunk'];
    delete config['relay'];
    await writeFile(
      join(conf, 'agent-host.yaml'),
      stringify({
        ...config,
        nodeName: 'node-1',
        datapathType: 'netdev',
        source: { kind: 'file', path: '/etc/fabrik/intent.yaml' },
      }),
    );
    await writeFile(join(conf, 'intent.yaml'), '');
    const settingsFile = join(cni, 'net.d', 'config.yaml');
    await writeFile(
      settingsFile,
      stringify({
        ...(parse(await readFile(join(REPO_ROOT, 'deploy/base/config/cni-settings.yaml'), 'utf8')) as object),
        cacheDir: join(cni, 'state', 'fabrik-ovs'),
      }),
    );
    const pod = [
      `--network=ns:/run/netns/${node.name}`,
      '-v',
      `${conf}:/etc/fabrik:ro`,
      '-v',
      `${ovs.dir}:/var/run/openvswitch`,
      '-v',
      `${join(conf, 'state')}:/var/lib/fabrik/agent-host`,
    ];
    const fastPath = [
      '-v',
      `${join(cni, 'socket')}:${dirname(config['cniSocket'] as string)}`,
      '-v',
      '/run/netns:/run/netns:ro,rslave',
      '-v',
      `${join(cni, 'net.d')}:${join(cni, 'net.d')}:ro`,
      '-v',
      `${join(cni, 'state')}:${join(cni, 'state')}`,
    ];
    await mkdir(join(conf, 'state'), { recursive: true });
    const daemon = (
      parse(await readFile(join(REPO_ROOT, 'deploy/base/agent-host.yaml'), 'utf8')) as {
        spec: {
          template: {
            spec: { containers: { args: string[]; securityContext: { capabilities: { add: string[] } } }[] };
          };
        };
      }
    ).spec.template.spec.containers[0]!;
    const capabilities = daemon.securityContext.capabilities.add;
    const name = `fabrik-agent-host-test-${process.pid}`;
    await run(
      'fabrik-agent-host',
      ['--detach', `--name=${name}`, ...pod, ...fastPath],
      daemon.args,
      capabilities,
    );
    try {
      await expect
        .poll(() => ovs.vsctl('--no-wait', 'list-br').then((out) => out.split('\n')), { timeout: 60_000 })
        .toContain('br-sec');
      // A Pod's attachment through the socket, as fabrik-ovs on the node sends it (containerd's
      // CNI_NETNS form). The settings' OVSDB socket exists only inside the pod, so an answer
      // is the agent's own work.
      const socket = join(cni, 'socket', basename(config['cniSocket'] as string));
      await expect
        .poll(
          () =>
            stat(socket).then(
              (st) => st.isSocket(),
              () => false,
            ),
          { timeout: 30_000 },
        )
        .toBe(true);
      const podNs = await createTempNetns('imgpod');
      try {
        const call = (command: string) =>
          callAgent(socket, {
            version: FAST_PATH_PROTOCOL_VERSION,
            env: {
              CNI_COMMAND: command,
              CNI_CONTAINERID: 'image-test-pod',
              CNI_NETNS: `/var/run/netns/${podNs.name}`,
              CNI_IFNAME: 'net1',
              CNI_PATH: '/opt/cni/bin',
              FABRIK_CNI_CONFIG: settingsFile,
              PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
            },
            stdin: JSON.stringify({
              cniVersion: '1.0.0',
              name: 'image-test',
              type: 'fabrik-ovs',
              bridge: 'br-sec',
              vlan: 100,
            }),
          });
        const added = await call('ADD');
        expect(added.kind === 'answered' && added.answer, JSON.stringify(added)).toMatchObject({
          exitCode: 0,
        });
        expect((await podNs.exec('ip', ['-o', 'link', 'show', 'net1'])).stdout).toMatch(/\bUP\b/);
        expect((await podNs.exec('sysctl', ['-n', 'net.ipv4.conf.net1.arp_notify'])).stdout.trim()).toBe('1');
        expect((await ovs.vsctl('--no-wait', 'list-ports', 'br-sec')).trim()).not.toBe('');
        const deleted = await call('DEL');
        expect(deleted.kind === 'answered' && deleted.answer, JSON.stringify(deleted)).toMatchObject({
          exitCode: 0,
        });
        expect((await podNs.exec('ip', ['-o', 'link', 'show'])).stdout).not.toMatch(/net1/);
        expect((await ovs.vsctl('--no-wait', 'list-ports', 'br-sec')).trim()).toBe('');
      } finally {
        await podNs.destroy();
      }
    } finally {
      // SIGTERM: the daemon leaves the node as it is.
      await runCommand('podman', ['stop', '--time=20', name], { env, timeoutMs: 60_000 });
      await runCommand('podman', ['rm', '--force', name], { env, timeoutMs: 60_000 });
    }
    expect(await ovs.vsctl('--no-wait', 'list-br')).toContain('br-sec');
    // The init container of deploy/uninstall/agent-host-cleanup.json, as the patched pod runs it.
    const patch = JSON.parse(
      await readFile(join(REPO_ROOT, 'deploy/uninstall/agent-host-cleanup.json'), 'utf8'),
    ) as { op: string; path: string; value?: string[] }[];
    const cleanupArgs = patch.find((op) => op.path === '/spec/template/spec/initContainers/0/args')!.value!;
    await run('fabrik-agent-host', pod, cleanupArgs, capabilities);
    expect(await ovs.vsctl('--no-wait', 'list-br')).not.toContain('br-sec');
    // The patched pod's main container only waits: the image has what it runs.
    const main = patch.find((op) => op.path === '/spec/template/spec/containers/0/command')!.value!;
    await run('fabrik-agent-host', [`--entrypoint=${main[0]}`], ['0']);
  });
});

describe.skipIf(unbuildable.get('fabrik-hbr') !== undefined)(title('fabrik-hbr'), () => {
  /** The capabilities deploy/base/hbr.yaml keeps for a container of the HBR pod. */
  async function hbrContainer(
    name: 'hbr' | 'trunk',
  ): Promise<{ command?: string[]; capabilities: string[] }> {
    const ds = parse(await readFile(join(REPO_ROOT, 'deploy/base/hbr.yaml'), 'utf8')) as {
      spec: {
        template: {
          spec: Record<
            'containers' | 'initContainers',
            { name: string; command?: string[]; securityContext: { capabilities: { add: string[] } } }[]
          >;
        };
      };
    };
    const { containers, initContainers } = ds.spec.template.spec;
    const found = [...containers, ...initContainers].find((c) => c.name === name)!;
    return {
      ...(found.command ? { command: found.command } : {}),
      capabilities: found.securityContext.capabilities.add,
    };
  }
  let target: TempNetns;
  beforeAll(async () => {
    target = await createTempNetns('hbrtr');
  });
  afterAll(() => target?.destroy());

  it('answers --version', async () => {
    expect((await run('fabrik-hbr', [], ['--version'])).stdout).toMatch(/\d+\.\d+\.\d+/);
  });

  it("the trunk init container's command creates tr in its netns and tr-host in the node's", async () => {
    // deploy/base/hbr.yaml's init container, with a throwaway netns standing for the node's,
    // mounted where the DaemonSet mounts the host's /proc.
    const trunk = await hbrContainer('trunk');
    const [entrypoint, ...args] = trunk.command!;
    await run(
      'fabrik-hbr',
      [
        '--network=none',
        '-v',
        `/run/netns/${target.name}:/host/proc/1/ns/net:ro`,
        `--entrypoint=${entrypoint}`,
      ],
      args,
      trunk.capabilities,
    );
    // The command succeeded only if tr-host could be created in the target; it went away with the
    // container's netns, which took the pair with it.
    expect(await target.ip('-j', 'link', 'show')).not.toContain('tr-host');
  });

  it("runs as the DaemonSet runs it: FRR started, the relay's intent applied, its status written for agent-host, ready; SIGTERM ends it", async () => {
    // deploy/base's hbr container: its args, capabilities, config (the ConfigMap at /etc/fabrik)
    // and relay directory; a throwaway netns is the pod's, with the trunk the init container makes
    // and the underlay NIC. The intent is empty (this kernel has no vrf or 8021q module): agent-netns
    // applies its base FRR configuration and reports provisioned.
    const daemon = (
      parse(await readFile(join(REPO_ROOT, 'deploy/base/hbr.yaml'), 'utf8')) as {
        spec: { template: { spec: { containers: { name: string; args: string[] }[] } } };
      }
    ).spec.template.spec.containers.find((c) => c.name === 'hbr')!;
    const pod = await createTempNetns('hbrpod');
    const relay = join(dir, 'hbr-relay');
    const conf = join(dir, 'hbr-conf');
    const name = `fabrik-hbr-test-${process.pid}`;
    try {
      for (const [a, b] of [
        ['tr', 'tr-host'],
        ['eth0', 'eth0-peer'],
      ])
        await pod.ip('link', 'add', a!, 'type', 'veth', 'peer', 'name', b!);
      await mkdir(relay, { recursive: true });
      await mkdir(conf, { recursive: true });
      await mkdir(join(dir, 'hbr-state'), { recursive: true });
      await copyFile(join(REPO_ROOT, 'deploy/base/config/agent-netns.yaml'), join(conf, 'agent-netns.yaml'));
      // agent-host's first relay write: no objects yet, in the relay format agent-netns requires.
      await writeFile(join(relay, 'intent.yaml'), formatRelayFile('', 0, 1));
      await run(
        'fabrik-hbr',
        [
          '--detach',
          `--name=${name}`,
          `--network=ns:/run/netns/${pod.name}`,
          '-e',
          'NODE_NAME=node-1',
          '-v',
          `${conf}:/etc/fabrik:ro`,
          '-v',
          `${relay}:/run/fabrik/relay`,
          '-v',
          `${join(dir, 'hbr-state')}:/var/lib/fabrik/agent-netns`,
        ],
        daemon.args,
        (await hbrContainer('hbr')).capabilities,
        { readOnlyRoot: false, keep: true },
      );
      await expect
        .poll(
          async () =>
            JSON.parse(await readFile(join(relay, 'netns-status.json'), 'utf8').catch(() => 'null')) as {
              configStatus?: string;
            } | null,
          { timeout: 90_000, interval: 500 },
        )
        .toMatchObject({ configStatus: 'provisioned' });
      const ready = await runCommand(
        'podman',
        [
          'exec',
          name,
          'node',
          '-e',
          "fetch('http://127.0.0.1:9722/readyz').then((r) => process.stdout.write(String(r.status)))",
        ],
        { env },
      );
      expect(ready.stdout).toBe('200');
      const bgp = await runCommand(
        'podman',
        ['exec', name, 'vtysh', '-N', 'hbr', '-c', 'show running-config'],
        {
          env,
        },
      );
      expect(bgp.stdout).toContain('router bgp 65001');
    } finally {
      const stopped = await runCommand('podman', ['stop', '--time=20', name], {
        env,
        timeoutMs: 60_000,
      }).catch((e: unknown) => e);
      const exit = await runCommand('podman', ['inspect', '--format', '{{.State.ExitCode}}', name], {
        env,
      }).catch(() => undefined);
      const logs = await runCommand('podman', ['logs', name], { env }).catch(() => undefined);
      await runCommand('podman', ['rm', '--force', name], { env, timeoutMs: 60_000 }).catch(() => {});
      await pod.destroy();
      expect(stopped).not.toBeInstanceOf(Error);
      expect(exit?.stdout.trim(), `${logs?.stdout ?? ''}${logs?.stderr ?? ''}`.slice(-4000)).toBe('0');
    }
  });

  it('runs plan against a file config, with FRR started in its netns', async () => {
    const conf = join(dir, 'hbr');
    await mkdir(conf, { recursive: true });
    await writeFile(
      join(conf, 'intent.yaml'),
      [
        'apiVersion: network.fabrik.dev/v1alpha1',
        'kind: Layer2Network',
        'metadata: {name: l2-100}',
        'spec: {vni: 2100, vlan: 100}',
        '',
      ].join('\n'),
    );
    await writeFile(
      join(conf, 'agent-netns.yaml'),
      [
        'nodeName: node-1',
        'asn: 65001',
        'routerId: 192.0.2.1',
        'vtepIp: 192.0.2.1',
        'frr: {pathspace: hbr}',
        'source: {kind: file, path: /conf/intent.yaml}',
        'stateDir: /state',
        '',
      ].join('\n'),
    );
    // The trunk exists before agent-netns starts (the init container's job): a veth stands for it.
    const result = await run(
      'fabrik-hbr',
      [
        '--network=none',
        '-v',
        `${conf}:/conf:ro`,
        '--tmpfs=/state',
        '--tmpfs=/run/frr',
        '--tmpfs=/var/tmp',
        '--entrypoint=sh',
      ],
      [
        '-c',
        'ip link add tr type veth peer name tr-peer && exec fabrik-hbr plan --config /conf/agent-netns.yaml',
      ],
      (await hbrContainer('hbr')).capabilities,
    ).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: unknown) => {
        if (!isCommandError(e)) throw e;
        return { code: e.exitCode, stdout: e.stdout, stderr: e.stderr };
      },
    );
    // 1: it would change something (nothing is there yet); the plan names the L2 network's links
    // and the FRR lines that running FRR lacks (the diff comes from frr-reload.py against it).
    expect(result, result.stderr).toMatchObject({ code: 1 });
    expect(result.stdout).toContain('ip link add name vx2100');
    expect(result.stdout).toContain('ip link add link tr name tr.100');
    expect(result.stdout).toContain('+ router bgp 65001 / address-family l2vpn evpn / advertise-all-vni');
  });
});
