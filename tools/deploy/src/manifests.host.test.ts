// deploy/ as users render it: every kustomization with kubectl 1.20 (kustomize 2.0.3) and 1.32
// (kustomize 5.5), every object valid against the Kubernetes OpenAPI schemas, the agents' configs
// valid against @fabrik/api, and the properties the deployment promises (no token in the HBR pod,
// probes, resources, capabilities) checked on the rendered objects.
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runCommand } from '@fabrik/netcore';
import { parseAgentHostConfig, parseAgentNetnsConfig, parseCniNodeSettings } from '@fabrik/api';
import {
  KUBECTL_VERSIONS,
  KUSTOMIZATIONS,
  REPO_ROOT,
  kubectlPath,
  objectId,
  renderKustomization,
  type KubeObject,
  type KubectlVersion,
} from './render.js';
import { validateObject } from './validate.js';

type Renders = Map<string, Map<KubectlVersion, KubeObject[]>>;
const renders: Renders = new Map();

beforeAll(async () => {
  for (const k of KUSTOMIZATIONS) {
    const byVersion = new Map<KubectlVersion, KubeObject[]>();
    for (const v of KUBECTL_VERSIONS)
      byVersion.set(v, (await renderKustomization(join(REPO_ROOT, k), v)).objects);
    renders.set(k, byVersion);
  }
}, 120_000);

const rendered = (k: string, v: KubectlVersion = '1.32'): KubeObject[] => renders.get(k)!.get(v)!;
const find = (objects: KubeObject[], kind: string, name: string): KubeObject => {
  const o = objects.find((x) => x.kind === kind && x.metadata.name.startsWith(name));
  if (!o) throw new Error(`${kind} ${name} not rendered`);
  return o;
};

/** The agents' configs as the kustomization's ConfigMaps hold them. */
const configOf = (k: string, name: string, key: string) =>
  parse((find(rendered(k), 'ConfigMap', name).data as Record<string, string>)[key]!) as {
    metricsAddress: string;
    healthAddress: string;
  };
const hostConfig = (k: string) => configOf(k, 'fabrik-agent-host-config', 'agent-host.yaml');
const netnsConfig = (k: string) => configOf(k, 'fabrik-agent-netns-config', 'agent-netns.yaml');

/**
 * What differs between kustomize releases without meaning anything: the content hash of ConfigMap
 * names (its algorithm changed) and the empty labels/annotations 2.0.3 leaves on merged ConfigMaps.
 */
const normalised = (objects: KubeObject[]): unknown =>
  JSON.parse(
    JSON.stringify(objects)
      .replace(/(fabrik-[a-z-]+-config)-[a-z0-9]{10}/g, '$1')
      .replace(/"(annotations|labels)":\{\},?/g, '')
      .replace(/,\}/g, '}'),
  );

interface PodSpecLike {
  automountServiceAccountToken?: boolean;
  tolerations?: unknown[];
  initContainers?: ContainerLike[];
  containers: ContainerLike[];
}
interface ContainerLike {
  name: string;
  image: string;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  securityContext?: {
    capabilities?: { drop?: string[]; add?: string[] };
    allowPrivilegeEscalation?: boolean;
  };
}
interface Probe {
  httpGet?: { host?: string; path: string; port: number };
  exec?: { command: string[] };
}
const podSpec = (ds: KubeObject): PodSpecLike =>
  (ds.spec as { template: { spec: PodSpecLike } }).template.spec;

describe.each(KUSTOMIZATIONS)('%s', (k) => {
  it('renders the same objects with kubectl 1.20 and 1.32', () => {
    expect(rendered(k, '1.20').length).toBeGreaterThan(0);
    expect(normalised(rendered(k, '1.20'))).toEqual(normalised(rendered(k, '1.32')));
  });

  it('every object is valid against the Kubernetes OpenAPI schemas', async () => {
    const problems: string[] = [];
    for (const o of rendered(k))
      for (const p of await validateObject(o)) problems.push(`${objectId(o)}: ${p}`);
    expect(problems).toEqual([]);
  });

  it("the agents' configs and the CNI node settings are valid for @fabrik/api", () => {
    const objects = rendered(k);
    const data = (name: string, key: string): unknown =>
      parse((find(objects, 'ConfigMap', name).data as Record<string, string>)[key]!);
    const host = parseAgentHostConfig(data('fabrik-agent-host-config', 'agent-host.yaml'));
    const netns = parseAgentNetnsConfig(data('fabrik-agent-netns-config', 'agent-netns.yaml'));
    const cni = parseCniNodeSettings(data('fabrik-cni-config', 'config.yaml'));
    expect([host.ok, netns.ok, cni.ok], JSON.stringify([host, netns, cni].filter((r) => !r.ok))).toEqual([
      true,
      true,
      true,
    ]);
  });

  it("agent-netns's config names the FRR pathspace the fabrik-hbr image starts", async () => {
    const entry = await readFile(
      join(REPO_ROOT, 'deploy/images/fabrik-hbr/rootfs/usr/local/bin/fabrik-hbr'),
      'utf8',
    );
    const started = /frrinit\.sh start (\S+)/.exec(entry)?.[1];
    const config = parse(
      (find(rendered(k), 'ConfigMap', 'fabrik-agent-netns-config').data as Record<string, string>)[
        'agent-netns.yaml'
      ]!,
    ) as { frr?: { pathspace?: string } };
    expect(started).toBeDefined();
    expect(config.frr?.pathspace).toBe(started);
  });

  it('the CNI fast path: agent-host serves the socket the node settings name, and sees every node path an invocation names where the node has it', () => {
    const objects = rendered(k);
    const data = (name: string, key: string): Record<string, unknown> =>
      parse((find(objects, 'ConfigMap', name).data as Record<string, string>)[key]!) as Record<
        string,
        unknown
      >;
    const host = data('fabrik-agent-host-config', 'agent-host.yaml');
    const settings = data('fabrik-cni-config', 'config.yaml') as {
      agentHostSocket?: string;
      cacheDir?: string;
      ipam?: { kubeconfig?: string };
    };
    expect(host['cniSocket']).toBeDefined();
    expect(settings.agentHostSocket).toBe(host['cniSocket']);
    const spec = podSpec(find(objects, 'DaemonSet', 'fabrik-agent-host')) as unknown as {
      volumes: { name: string; hostPath?: { path: string } }[];
      containers: {
        name: string;
        volumeMounts: { name: string; mountPath: string; mountPropagation?: string }[];
      }[];
    };
    const agent = spec.containers.find((c) => c.name === 'agent-host')!;
    /** The node directory holding `path` as agent-host's container sees it (same path on both). */
    const nodeMountOf = (path: string) =>
      agent.volumeMounts.find((m) => {
        const node = spec.volumes.find((v) => v.name === m.name)?.hostPath?.path;
        return node === m.mountPath && (path === node || path.startsWith(`${node}/`));
      });
    const nodePaths = [
      settings.agentHostSocket!,
      '/run/netns/cni-0', // containerd's and CRI-O's CNI_NETNS
      '/opt/cni/bin/host-local', // CNI_PATH: delegated IPAM
      '/etc/cni/net.d/fabrik.d/config.yaml', // the node settings file the invocation reads
      settings.cacheDir!,
      settings.ipam!.kubeconfig!,
    ];
    expect(nodePaths.filter((p) => nodeMountOf(p) === undefined)).toEqual([]);
    expect(nodeMountOf('/run/netns/cni-0')?.mountPropagation).toBe('HostToContainer');
    // The socket's directory is its own, not the relay shared with the HBR pod.
    expect(nodeMountOf(settings.agentHostSocket!)?.mountPath).toBe('/run/fabrik/cni');
  });

  it('every container has resources, drops every capability and cannot escalate; agents have probes', () => {
    for (const ds of rendered(k).filter((o) => o.kind === 'DaemonSet')) {
      const spec = podSpec(ds);
      expect(spec.tolerations, ds.metadata.name).toEqual([{ operator: 'Exists' }]);
      for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
        const where = `${ds.metadata.name}/${c.name}`;
        expect(c.resources?.requests?.['memory'], where).toBeDefined();
        expect(c.resources?.limits?.['memory'], where).toBeDefined();
        expect(c.securityContext?.capabilities?.drop, where).toEqual(['ALL']);
        expect(c.securityContext?.allowPrivilegeEscalation, where).toBe(false);
      }
      if (ds.metadata.name !== 'fabrik-cni') {
        const [agent] = spec.containers;
        // Each probe asks the loopback (where healthAddress listens by default) for its path.
        const asks = (probe: Probe | undefined, path: string) => {
          if (probe?.httpGet)
            return `http://${probe.httpGet.host}:${probe.httpGet.port}${probe.httpGet.path}`;
          return /http:\/\/[^'"]+/.exec(probe?.exec?.command.join(' ') ?? '')?.[0] ?? `nothing for ${path}`;
        };
        const config = ds.metadata.name === 'fabrik-hbr' ? netnsConfig(k) : hostConfig(k);
        const port = config.healthAddress.split(':').at(-1);
        expect(asks(agent?.livenessProbe, '/healthz')).toBe(`http://127.0.0.1:${port}/healthz`);
        expect(asks(agent?.readinessProbe, '/readyz')).toBe(`http://127.0.0.1:${port}/readyz`);
      } else {
        // The installer's readiness looks at what it installs (proven in tools/images).
        expect(spec.containers[0]?.readinessProbe?.exec?.command).toBeDefined();
      }
    }
  });
});

describe('deploy/base', () => {
  it('metrics and health listen on the loopback only (docs/security.md)', () => {
    for (const config of [hostConfig('deploy/base'), netnsConfig('deploy/base')]) {
      expect(config.metricsAddress).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(config.healthAddress).toMatch(/^127\.0\.0\.1:\d+$/);
    }
  });

  it('the HBR pod holds no API credentials', () => {
    const objects = rendered('deploy/base');
    expect(podSpec(find(objects, 'DaemonSet', 'fabrik-hbr')).automountServiceAccountToken).toBe(false);
    expect(find(objects, 'ServiceAccount', 'fabrik-hbr').automountServiceAccountToken).toBe(false);
    expect(
      objects.filter((o) => o.kind.endsWith('Binding') && JSON.stringify(o).includes('"fabrik-hbr"')),
    ).toEqual([]);
  });

  it('agent-host and fabrik-hbr share the relay directory the configs name, on the node', () => {
    const objects = rendered('deploy/base');
    for (const name of ['fabrik-agent-host', 'fabrik-hbr']) {
      const volumes = (
        podSpec(find(objects, 'DaemonSet', name)) as unknown as {
          volumes: { name: string; hostPath?: { path: string } }[];
        }
      ).volumes;
      expect(volumes.find((v) => v.name === 'relay')?.hostPath?.path, name).toBe('/run/fabrik/relay');
    }
  });

  it("images are tagged with their app's version", async () => {
    const version = async (app: string): Promise<string> =>
      (
        JSON.parse(await readFile(join(REPO_ROOT, 'apps', app, 'package.json'), 'utf8')) as {
          version: string;
        }
      ).version;
    const images = rendered('deploy/base')
      .filter((o) => o.kind === 'DaemonSet')
      .flatMap((ds) => podSpec(ds).containers.map((c) => c.image));
    expect(new Set(images)).toEqual(
      new Set([
        `localhost/fabrik/fabrik-hbr:${await version('agent-netns')}`,
        `localhost/fabrik/fabrik-agent-host:${await version('agent-host')}`,
        `localhost/fabrik/fabrik-cni:${await version('cni-ovs')}`,
      ]),
    );
  });
});

describe('deploy/uninstall/agent-host-cleanup.json (docs/install.md, Uninstall)', () => {
  // The patch turns agent-host's DaemonSet into its cleanup: the daemon stops (it would recreate
  // the bridges of its config), an init container with the daemon's image, mounts and privileges
  // runs `cleanup`, and the pod is Ready only once that succeeded, so `rollout status` waits for
  // every node's cleanup.
  it.each(KUSTOMIZATIONS.flatMap((k) => KUBECTL_VERSIONS.map((v) => [k, v] as const)))(
    '%s, kubectl %s patch: a valid DaemonSet that runs cleanup before anything else',
    async (k, v) => {
      const dir = await mkdtemp(join(tmpdir(), 'fabrik-uninstall-'));
      try {
        const ds = find(rendered(k), 'DaemonSet', 'fabrik-agent-host');
        await writeFile(join(dir, 'ds.yaml'), stringify(ds));
        const { stdout } = await runCommand(kubectlPath(v), [
          'patch',
          '--local',
          '-f',
          join(dir, 'ds.yaml'),
          '--type=json',
          '--patch-file',
          join(REPO_ROOT, 'deploy/uninstall/agent-host-cleanup.json'),
          '-o',
          'yaml',
        ]);
        const patched = parse(stdout) as KubeObject;
        expect(await validateObject(patched)).toEqual([]);
        const before = podSpec(ds);
        const after = podSpec(patched);
        const daemon = before.containers[0]!;
        expect(after.initContainers).toEqual([
          {
            ...Object.fromEntries(
              Object.entries(daemon).filter(
                ([key]) => !['ports', 'livenessProbe', 'readinessProbe'].includes(key),
              ),
            ),
            name: 'cleanup',
            args: ['cleanup', '--config', '/etc/fabrik/agent-host.yaml'],
          },
        ]);
        expect(after.containers).toHaveLength(1);
        const { command, args, livenessProbe, readinessProbe, ...rest } = after
          .containers[0]! as ContainerLike & {
          command?: string[];
          args?: string[];
        };
        expect({ command, args, livenessProbe, readinessProbe }).toEqual({
          command: ['sleep', 'infinity'],
          args: undefined,
          livenessProbe: undefined,
          readinessProbe: undefined,
        });
        expect(rest).toMatchObject({ image: daemon.image, securityContext: daemon.securityContext });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('deploy/crds/Kustomization', () => {
  it.each(KUBECTL_VERSIONS)(
    'kubectl %s: `apply -k deploy/crds` installs the CRDs, and no other kustomization holds one (a prune of the workloads keeps them)',
    async (v) => {
      const { objects } = await renderKustomization(join(REPO_ROOT, 'deploy/crds'), v);
      expect(objects.map((o) => o.kind)).toEqual(Array(objects.length).fill('CustomResourceDefinition'));
      expect(objects.length).toBeGreaterThan(0);
      for (const k of KUSTOMIZATIONS)
        expect(
          rendered(k, v).filter((o) => o.kind === 'CustomResourceDefinition'),
          k,
        ).toEqual([]);
    },
  );

  it("lists exactly fabrik's own CRDs (the NetworkAttachmentDefinition CRD is Multus's)", async () => {
    const dir = join(REPO_ROOT, 'deploy/crds');
    const own = (await readdir(dir)).filter((f) => f.endsWith('.network.fabrik.dev.yaml')).sort();
    const listed = (parse(await readFile(join(dir, 'Kustomization'), 'utf8')) as { resources: string[] })
      .resources;
    expect(listed).toEqual(own);
  });
});
