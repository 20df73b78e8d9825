import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NodeNetworkStatus } from '@fabrik/api';
import {
  auditIpPools,
  auditNode,
  buildTopology,
  mergeAudits,
  takeNodeInventory,
  type AuditResult,
  type AuditedIpPool,
  type NodeInventory,
} from '@fabrik/lab';
import { netnsDel } from '@fabrik/netcore';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import { expectNode, type AppliedObjects } from './explain.js';
import { MULTUS_RBAC } from './multus.js';
import { startNode, type NodeRuntime } from './node.js';
import type { LabPod } from './pods.js';
import { clusterNodes, clusterTopology, type ClusterNode } from './topology.js';

// The lab cluster as one handle: topology, control plane, both nodes with their agents, the Pods
// that run, and the audit of all of it against the objects in the API.

export const API_PATHS = {
  vrfs: '/apis/network.fabrik.dev/v1alpha1/vrfs',
  layer2s: '/apis/network.fabrik.dev/v1alpha1/layer2networks',
  ippools: '/apis/network.fabrik.dev/v1alpha1/ippools',
  nns: '/apis/network.fabrik.dev/v1alpha1/nodenetworkstatuses',
  nodes: '/api/v1/nodes',
} as const;

export interface LabCluster {
  readonly dir: string;
  readonly cp: ControlPlane;
  readonly nodes: readonly NodeRuntime[];
  /** Pods running now, in start order. */
  readonly pods: readonly LabPod[];
  runPod(node: NodeRuntime, name: string, nads: readonly string[]): Promise<LabPod>;
  removePod(pod: LabPod): Promise<void>;
  /** The VRFs and Layer2Networks in the API, but those named in `except` (known to be refused). */
  appliedObjects(except?: ReadonlySet<string>): Promise<AppliedObjects>;
  /** What every node holds now. */
  inventories(): Promise<NodeInventory[]>;
  /** Every node and every IPPool against `objects` and the running Pods; with the inventories it read. */
  audit(objects: AppliedObjects): Promise<ClusterAudit>;
  /** Only the IPPools against the running Pods (no process starts on the nodes). */
  auditIpPools(): Promise<AuditResult>;
  /** Audits until nothing is leaked or missing, or `timeoutMs` passed; the last audit and how long it took. */
  converge(objects: AppliedObjects, timeoutMs: number): Promise<Convergence>;
  destroy(): Promise<void>;
}

export interface ClusterAudit extends AuditResult {
  /** What each node held when audited, in node order. */
  readonly inventories: readonly NodeInventory[];
}

export interface Convergence {
  readonly converged: boolean;
  /** From the call until the audit came out clean (or the timeout). */
  readonly ms: number;
  readonly audit: AuditResult;
}

/** Reads of a node's inventory before its error counts. */
const INVENTORY_ATTEMPTS = 3;
/**
 * Between two audits while waiting for convergence: short at first (most waits end within a second
 * or two), then longer, since each audit starts processes on the nodes that compete for the lab
 * kernel's one thread with the agents being waited for.
 */
const CONVERGE_POLL_MS = [100, 250, 500, 1000] as const;
/**
 * Until the agents report the objects applied, the wait reads NodeNetworkStatus (an API request, no
 * process on the nodes) this often, and audits only this rarely: a report can lag the data plane
 * (the API server restarting under the chaos suite), and then the audit decides.
 */
const STATUS_POLL_MS = 250;
const UNREPORTED_AUDIT_MS = 5000;

/** Whether `reported` names exactly `objects`, at their generations (where known). */
function sameGenerations(
  reported: Readonly<Record<string, number>> | undefined,
  objects: readonly { readonly metadata: { readonly name: string; readonly generation?: number } }[],
): boolean {
  const r = reported ?? {};
  return (
    Object.keys(r).length === objects.length &&
    objects.every(
      ({ metadata: m }) => m.name in r && (m.generation === undefined || r[m.name] === m.generation),
    )
  );
}

export const isClean = (r: AuditResult): boolean => r.leaked.length + r.missing.length === 0;

export interface LabClusterOptions {
  /** Prefix of every netns and lab-side link name, so runs never collide. Default `lab-`. */
  readonly prefix?: string;
  /** Runs each phase of the start, so a report can time it (default: just runs it). */
  readonly phase?: <T>(name: string, fn: () => Promise<T>) => Promise<T>;
}

/**
 * fabrik's deployment for the lab, installed first as docs/install.md says: the CRDs on their own,
 * then namespace, ServiceAccounts, RBAC and admission policies.
 */
export const FABRIK_MANIFESTS = [
  ['-k', 'deploy/crds'],
  ['-k', 'deploy/overlays/lab'],
] as const;
/** The lab's intent, in order: Multus's CRD (a cluster with Multus has it), then the objects. */
export const INTENT_MANIFESTS = [
  ['-f', 'deploy/crds/network-attachment-definitions.k8s.cni.cncf.io.yaml'],
  ['-f', 'examples/lab'],
] as const;

/** How many objects `kubectl apply` reports (one `<kind>/<name> created|configured|unchanged` line each). */
const appliedCount = (out: string) => out.split('\n').filter((l) => /^\S+\/\S+ \w+$/.test(l.trim())).length;

/**
 * Builds the topology, starts the control plane, installs fabrik and the lab's intent with kubectl,
 * registers the Nodes and starts both nodes with their agents. On failure, removes what it built.
 */
export async function startLabCluster(options: LabClusterOptions = {}): Promise<LabCluster> {
  const phase = options.phase ?? (<T>(_: string, fn: () => Promise<T>) => fn());
  const nodes = clusterNodes(options.prefix ?? 'lab-');
  const dir = await mkdtemp(join(tmpdir(), 'fabrik-cluster-'));
  const undo: (() => Promise<void>)[] = [() => rm(dir, { recursive: true, force: true })];
  const runtimes: NodeRuntime[] = [];
  const pods: LabPod[] = [];
  const unwind = async () => {
    for (const u of undo.splice(0).reverse()) await u().catch(() => undefined);
  };
  let cp: ControlPlane;
  try {
    const topology = await phase(
      'topology: 2 nodes (host + HBR netns), underlay, trunks, links to the control plane',
      () => buildTopology(clusterTopology(nodes)),
    );
    undo.push(() => topology.destroy());
    cp = await phase('control plane: kube-apiserver + etcd', () => startControlPlane(dir));
    undo.push(() => cp.stop());
    const plane = cp;
    await phase('kubectl version', async () =>
      (await plane.kubectl('version')).trim().split('\n').join('; '),
    );
    const control = cp;
    await phase(
      "kubectl apply -k deploy/crds, then deploy/overlays/lab: fabrik (CRDs, RBAC, ServiceAccounts, policies); Multus's RBAC",
      async () => {
        let out = '';
        for (const manifest of FABRIK_MANIFESTS) out += await control.kubectl('apply', ...manifest);
        for (const { path, object } of MULTUS_RBAC) await control.kube.create(path, object);
        for (const n of nodes)
          await control.kube.create(API_PATHS.nodes, {
            apiVersion: 'v1',
            kind: 'Node',
            metadata: { name: n.name, labels: { 'kubernetes.io/hostname': n.name } },
          });
        return `${appliedCount(out)} objects; Multus's ServiceAccount and RBAC; Nodes ${nodes.map((n) => n.name).join(', ')} registered`;
      },
    );
    await phase(
      'nodes: FRR + agent-netns in each HBR netns, Open vSwitch + agent-host in each host netns; meanwhile kubectl apply of the lab intent (VRF, Layer2Networks, IPPools, NADs)',
      async () => {
        // Both nodes and the intent at once: most of a start is waiting for daemons, and the
        // agents pick the intent up through their watches whenever it lands.
        const intent = (async () => {
          let count = 0;
          for (const manifest of INTENT_MANIFESTS)
            count += appliedCount(await control.kubectl('apply', ...manifest));
          return count;
        })();
        intent.catch(() => undefined); // awaited below; a failing node start must not leave it unhandled
        const started = await Promise.allSettled(
          nodes.map((node) => startNode(node, control, join(dir, node.id))),
        );
        for (const s of started) if (s.status === 'fulfilled') runtimes.push(s.value);
        // The nodes stop at once: each mostly waits for its daemons to exit.
        undo.push(() => Promise.all(runtimes.map((rt) => rt.stop())).then(() => undefined));
        const failed = started.find((s) => s.status === 'rejected');
        if (failed) throw failed.reason;
        return `${await intent} intent objects applied`;
      },
    );
  } catch (e) {
    await unwind();
    throw e;
  }
  const control = cp;
  undo.push(async () => {
    // The cluster goes as a whole: a Pod's veth goes with its netns, its OVS port with the node's
    // Open vSwitch, its records and IPPool address with the run's directory and the API server.
    // A CNI DEL per Pod here would only cost seconds of the lab kernel each (the clean delete is
    // a check of its own).
    await Promise.all(pods.map((pod) => netnsDel(pod.netns)));
  });
  const runtimeOf = (node: ClusterNode) => runtimes.find((r) => r.node.id === node.id)!;
  const inventoryOf = (rt: NodeRuntime) =>
    takeNodeInventory({
      netns: [rt.node.host, rt.node.hbr],
      ovsdb: rt.ovs.endpoint,
      frrPathspaces: [rt.node.hbr],
      dirs: [rt.paths.cniCache, rt.paths.libcniCache],
    });
  // A loaded lab kernel may let an OVSDB connect or a vtysh call time out: read that node again.
  const inventories = () =>
    Promise.all(
      runtimes.map(async (rt) => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await inventoryOf(rt);
          } catch (e) {
            if (attempt === INVENTORY_ATTEMPTS) throw e;
          }
        }
      }),
    );
  const ipPoolAudit = async (): Promise<AuditResult> =>
    auditIpPools(
      await control.kube.list<AuditedIpPool>(API_PATHS.ippools),
      pods.flatMap((p) => p.attachments),
    );
  // Both agents of every node report, in NodeNetworkStatus, the generations of exactly `objects`.
  const reportsApplied = async (objects: AppliedObjects): Promise<boolean> => {
    const list = await control.kube.list<NodeNetworkStatus>(API_PATHS.nns);
    return runtimes.every((rt) => {
      const status = list.find((n) => n.metadata.name === rt.node.name)?.status;
      const netns = status?.netns?.appliedGenerations;
      const host = status?.host?.appliedGenerations;
      return (
        sameGenerations(netns?.vrfs, objects.vrfs) &&
        sameGenerations(netns?.layer2Networks, objects.layer2s) &&
        sameGenerations(host?.layer2Networks, objects.layer2s)
      );
    });
  };
  const audit = async (objects: AppliedObjects): Promise<ClusterAudit> => {
    const [invs, pools] = await Promise.all([inventories(), ipPoolAudit()]);
    const nodeAudits = runtimes.map((rt, i) =>
      auditNode(invs[i]!, expectNode(rt.node, rt.paths, objects, pods)),
    );
    return { ...mergeAudits(...nodeAudits, pools), inventories: invs };
  };
  return {
    dir,
    cp: control,
    nodes: runtimes,
    pods,
    async runPod(rt, name, nads) {
      const pod = await rt.pods.run(name, nads);
      pods.push(pod);
      return pod;
    },
    async removePod(pod) {
      await runtimeOf(pod.node).pods.remove(pod);
      pods.splice(pods.indexOf(pod), 1);
    },
    async appliedObjects(except = new Set()) {
      const [vrfs, layer2s] = await Promise.all([
        control.kube.list<AppliedObjects['vrfs'][number]>(API_PATHS.vrfs),
        control.kube.list<AppliedObjects['layer2s'][number]>(API_PATHS.layer2s),
      ]);
      return {
        vrfs: vrfs.filter((v) => !except.has(v.metadata.name)),
        layer2s: layer2s.filter((l) => !except.has(l.metadata.name)),
      };
    },
    inventories,
    audit,
    auditIpPools: ipPoolAudit,
    async converge(objects, timeoutMs) {
      const t0 = performance.now();
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      let audits = 0;
      // The first audit too waits for the reports (or UNREPORTED_AUDIT_MS): right after a change,
      // the agents have not acted yet and an audit would only compete with them.
      let lastAuditAt = 0;
      for (;;) {
        const since = performance.now() - t0;
        const due =
          since > timeoutMs ||
          since - lastAuditAt >= UNREPORTED_AUDIT_MS ||
          (await reportsApplied(objects).catch(() => false));
        if (!due) {
          await sleep(STATUS_POLL_MS);
          continue;
        }
        lastAuditAt = since;
        // A node too busy to answer (an OVSDB connect timing out in a loaded lab) is not converged
        // yet; the timeout decides. Audits are spaced: each one starts processes on the nodes.
        const result = await audit(objects).catch((e: unknown) => e as Error);
        const ms = performance.now() - t0;
        if (result instanceof Error) {
          if (ms > timeoutMs) throw result;
        } else if (isClean(result) || ms > timeoutMs)
          return { converged: isClean(result), ms, audit: result };
        await sleep(CONVERGE_POLL_MS[Math.min(audits++, CONVERGE_POLL_MS.length - 1)]!);
      }
    },
    destroy: unwind,
  };
}
