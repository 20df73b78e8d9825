import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { isPathWithin } from '@fabrik/api';
import type { NodeInventory } from '@fabrik/lab';
import { API_PATHS } from '../cluster/cluster.js';
import { REPO } from '../cluster/control-plane.js';
import type { ChaosContext } from './faults.js';

// The held bad-input matrix: every file of examples/invalid names the field that is wrong
// (`test.fabrik.dev/error-field`) and who refuses it (`test.fabrik.dev/api-server: refuses-create`,
// `refuses-status-update` or `accepts`). What the API server refuses must fail `kubectl apply`
// (or the status write) naming the field; what it
// accepts must be reported by the agent that reads it (NodeNetworkStatus objectErrors, naming the
// field) or refused where it is used. Either way, no node changes.

export const INVALID_DIR = join(REPO, 'examples/invalid');
const FIELD_ANNOTATION = 'test.fabrik.dev/error-field';
const API_ANNOTATION = 'test.fabrik.dev/api-server';

export interface InvalidExample {
  readonly file: string;
  readonly kind: string;
  readonly name: string;
  readonly field: string;
  readonly apiServer: (typeof API_ANSWERS)[number];
  /** The object's status (a status subresource write is what `refuses-status-update` refuses). */
  readonly status?: unknown;
}

const API_ANSWERS = ['accepts', 'refuses-create', 'refuses-status-update'] as const;

export async function invalidExamples(): Promise<InvalidExample[]> {
  const files = (await readdir(INVALID_DIR)).filter((f) => f.endsWith('.yaml')).sort();
  return Promise.all(
    files.map(async (f) => {
      const doc = parse(await readFile(join(INVALID_DIR, f), 'utf8')) as {
        kind: string;
        metadata: { name: string; annotations: Record<string, string> };
        status?: unknown;
      };
      const apiServer = API_ANSWERS.find((a) => a === doc.metadata.annotations[API_ANNOTATION]);
      const field = doc.metadata.annotations[FIELD_ANNOTATION];
      if (!apiServer || !field)
        throw new Error(
          `examples/invalid/${f}: needs ${API_ANNOTATION} (${API_ANSWERS.join(', ')}) and ${FIELD_ANNOTATION}`,
        );
      return {
        file: join(INVALID_DIR, f),
        kind: doc.kind,
        name: doc.metadata.name,
        field,
        apiServer,
        ...(doc.status === undefined ? {} : { status: doc.status }),
      };
    }),
  );
}

interface ObjectError {
  readonly kind: string;
  readonly name: string;
  readonly field?: string;
  readonly message: string;
}
interface NnsStatus {
  readonly metadata: { readonly name: string };
  readonly status?: Record<string, { readonly objectErrors?: readonly ObjectError[] } | undefined>;
}

/** Every node's report of `name` (any section), once all nodes have one. */
async function reportedByAllNodes(
  ctx: ChaosContext,
  kind: string,
  name: string,
): Promise<ObjectError[] | undefined> {
  const list = await ctx.cluster.cp.kube.list<NnsStatus>(API_PATHS.nns);
  const found = ctx.cluster.nodes.map((rt) => {
    const nns = list.find((n) => n.metadata.name === rt.node.name);
    return Object.values(nns?.status ?? {})
      .flatMap((s) => s?.objectErrors ?? [])
      .find((e) => e.kind === kind && e.name === name);
  });
  return found.every((f) => f !== undefined) ? (found as ObjectError[]) : undefined;
}

/** What an inventory holds, as comparable lines. */
export function inventoryLines(invs: readonly NodeInventory[]): Set<string> {
  return new Set(
    invs.flatMap((i) => [
      ...i.links.map((l) => `link ${l.netns}/${l.name}`),
      ...i.ovsRows.map((r) => `ovs ${r.table}/${r.name}`),
      ...i.frrLines.map((l) => `frr ${l.pathspace}: ${[...l.context, l.line].join(' / ')}`),
      ...i.files.map((f) => `file ${f}`),
    ]),
  );
}

/** The differences between two inventories (`+ added`, `- removed`); empty when the nodes did not change. */
export function inventoryDiff(before: readonly NodeInventory[], after: readonly NodeInventory[]): string[] {
  const [b, a] = [inventoryLines(before), inventoryLines(after)];
  return [
    ...[...a].filter((x) => !b.has(x)).map((x) => `+ ${x}`),
    ...[...b].filter((x) => !a.has(x)).map((x) => `- ${x}`),
  ];
}

/**
 * Applies every invalid example in turn. A refused one must name its field; an accepted VRF or
 * Layer2Network must be reported by every node naming its field; an accepted IPPool or
 * NetworkAttachmentDefinition must make a Pod attachment that uses it fail naming the problem.
 * After each, the nodes hold exactly what they held before.
 */
export async function badInputTrials(ctx: ChaosContext): Promise<void> {
  const { cluster } = ctx;
  for (const ex of await invalidExamples()) {
    const before = await cluster.inventories();
    const t0 = performance.now();
    let verdict: string | undefined;
    let problem: string | undefined;
    let applied = false;
    try {
      await cluster.cp.kubectl('apply', '-f', ex.file);
      applied = true;
    } catch (e) {
      const message = (e as Error).message;
      if (ex.apiServer === 'accepts') problem = `the API server refused it: ${message}`;
      else if (ex.apiServer === 'refuses-status-update')
        problem = `the API server refused the object: ${message}`;
      else if (!message.includes(ex.field)) problem = `refused without naming ${ex.field}: ${message}`;
      else verdict = 'refused by the API server';
    }
    if (applied && ex.apiServer === 'refuses-create') problem = 'the API server accepted it';
    else if (applied && ex.apiServer === 'refuses-status-update') {
      try {
        await cluster.cp.kube.patch(`${API_PATHS.nns}/${ex.name}/status`, { status: ex.status });
        problem = 'the API server accepted the status write';
      } catch (e) {
        const message = (e as Error).message;
        if (!message.includes(ex.field))
          problem = `status write refused without naming ${ex.field}: ${message}`;
        else verdict = 'status write refused by the API server';
      }
    } else if (applied && (ex.kind === 'VRF' || ex.kind === 'Layer2Network')) {
      try {
        const reports = await waitForReports(ctx, ex);
        // The agent may name a path inside the annotated field (the offending map key, list item).
        const wrong = reports.find((r) => !isPathWithin(r.field ?? '', ex.field));
        if (wrong) problem = `reported with field ${wrong.field}: ${wrong.message}`;
        else verdict = `reported by every node: ${reports[0]!.message}`;
      } catch (e) {
        problem = (e as Error).message;
      }
    } else if (applied) {
      // Used by a Pod: the attachment fails and leaves nothing behind.
      try {
        await attachUsing(ctx, ex);
        problem = 'a Pod attachment using it succeeded';
      } catch (e) {
        verdict = `a Pod attachment using it fails: ${(e as Error).message.split('\n')[0]}`;
      }
    }
    if (applied) await cluster.cp.kubectl('delete', '-f', ex.file);
    const diff = inventoryDiff(before, await cluster.inventories());
    if (diff.length)
      problem = `${problem ? `${problem}; ` : ''}the nodes changed: ${diff.slice(0, 5).join(', ')}`;
    ctx.record({
      suite: 'bad input',
      name: `${ex.file.slice(INVALID_DIR.length + 1)} (${ex.field})`,
      converged: problem === undefined,
      leaked: diff.filter((d) => d.startsWith('+')).length,
      recoverMs: performance.now() - t0,
      detail: problem ?? verdict ?? '',
    });
  }
}

async function waitForReports(ctx: ChaosContext, ex: InvalidExample): Promise<ObjectError[]> {
  const until = Date.now() + ctx.convergeTimeoutMs;
  for (;;) {
    const reports = await reportedByAllNodes(ctx, ex.kind, ex.name);
    if (reports) return reports;
    if (Date.now() > until) throw new Error(`not reported by every node within ${ctx.convergeTimeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A Pod on the first node attached through the example (a NAD) or a NAD of the example's pool. */
async function attachUsing(ctx: ChaosContext, ex: InvalidExample): Promise<void> {
  const rt = ctx.cluster.nodes[0]!;
  if (ex.kind === 'NetworkAttachmentDefinition') {
    await ctx.cluster.runPod(rt, `bad-${ex.name}`, [ex.name]);
    return;
  }
  // An IPPool: a NAD whose IPAM allocates from it.
  const nad = `bad-${ex.name}`;
  const spec = (
    (await ctx.cluster.cp.kube.get<{ spec: { subnetInfo?: { vlan?: number } } }>(
      `${API_PATHS.ippools}/${ex.name}`,
    )) ?? { spec: {} }
  ).spec;
  await ctx.cluster.cp.kube.create(
    '/apis/k8s.cni.cncf.io/v1/namespaces/default/network-attachment-definitions',
    {
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: { name: nad, namespace: 'default' },
      spec: {
        config: JSON.stringify({
          cniVersion: '1.0.0',
          name: nad,
          type: 'fabrik-ovs',
          vlan: spec.subnetInfo?.vlan ?? 100,
          ipam: { type: 'fabrik-ipam', ippools: [ex.name] },
        }),
      },
    },
  );
  try {
    await ctx.cluster.runPod(rt, nad, [nad]);
  } finally {
    await ctx.cluster.cp.kube.delete(
      `/apis/k8s.cni.cncf.io/v1/namespaces/default/network-attachment-definitions/${nad}`,
    );
  }
}
