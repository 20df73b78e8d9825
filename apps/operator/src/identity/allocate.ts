import { NODE_IDENTITY_ANNOTATIONS, type NodeIdentity } from '@fabrik/api';
import { asnPool, ipv4Pool, ipv4ToNumber, numberToIpv4, type ValuePool } from './pool.js';

// Node identities (pure): each Node gets an AS number, a router ID and a VTEP address, from its
// annotations or from the operator's pools. What a node holds is recorded in its
// NodeNetworkConfig's spec and given back here as `held`, so an allocation never moves: not when
// the operator restarts, not when other nodes join or leave. A Node deleted keeps its values
// reserved while its NodeNetworkConfig exists (the grace period); then they are free again.
// Nothing is ever given twice: a value claimed by two nodes is reported, not shared.

/** Where identities come from when a Node has no annotation. */
export interface IdentityPools {
  /** IPv4 CIDR of router IDs. */
  readonly routerIds: string;
  /** IPv4 CIDR of VTEP addresses. */
  readonly vtepIps: string;
  /** One AS number for every node, or a range (each node its own). */
  readonly asn: number | { readonly from: number; readonly to: number };
}

/** A Node as allocation sees it. */
export interface IdentityClaim {
  readonly name: string;
  readonly annotations?: Readonly<Record<string, string>>;
}

export type IdentityField = keyof NodeIdentity;

export const IDENTITY_PROBLEM_REASONS = [
  'PoolExhausted',
  'DuplicateAnnotation',
  'InvalidAnnotation',
  'AnnotationConflict',
] as const;
export type IdentityProblemReason = (typeof IDENTITY_PROBLEM_REASONS)[number];

/** Why a node got no identity (one per field at fault). */
export interface IdentityProblem {
  readonly node: string;
  readonly field: IdentityField;
  readonly reason: IdentityProblemReason;
  readonly message: string;
}

export interface IdentityAllocation {
  /** By node name: every Node of the input whose three fields could be given. */
  readonly identities: ReadonlyMap<string, NodeIdentity>;
  /** Sorted by node and field. */
  readonly problems: readonly IdentityProblem[];
}

/** How one field is allocated. */
interface FieldRule {
  readonly field: IdentityField;
  readonly annotation: string;
  /** The pool; its values are unique per node unless `shared`. */
  readonly pool: ValuePool;
  /** Every node gets the pool's single value (one AS number for the cluster): no uniqueness. */
  readonly shared: boolean;
  parse(text: string): number | undefined;
  format(value: number): string;
}

const parseAsn = (text: string): number | undefined => {
  if (!/^[1-9][0-9]{0,9}$/.test(text)) return undefined;
  const asn = Number(text);
  return asn <= 4_294_967_294 && asn !== 23456 && asn !== 65535 ? asn : undefined;
};

function fieldRules(pools: IdentityPools): FieldRule[] {
  const ipv4 = { parse: ipv4ToNumber, format: numberToIpv4, shared: false };
  const asn =
    typeof pools.asn === 'number'
      ? { pool: asnPool(pools.asn, pools.asn), shared: true }
      : { pool: asnPool(pools.asn.from, pools.asn.to), shared: false };
  return [
    { field: 'asn', annotation: NODE_IDENTITY_ANNOTATIONS.asn, ...asn, parse: parseAsn, format: String },
    {
      field: 'routerId',
      annotation: NODE_IDENTITY_ANNOTATIONS.routerId,
      pool: ipv4Pool(pools.routerIds),
      ...ipv4,
    },
    { field: 'vtepIp', annotation: NODE_IDENTITY_ANNOTATIONS.vtepIp, pool: ipv4Pool(pools.vtepIps), ...ipv4 },
  ];
}

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The identities of `nodes` (deterministic: the same input gives the same output, whatever its
 * order). `held` is what each node holds now, by node name, from the NodeNetworkConfigs: those of
 * Nodes that are gone too (they stay reserved until their object is deleted).
 */
export function allocateIdentities(
  pools: IdentityPools,
  nodes: readonly IdentityClaim[],
  held: ReadonlyMap<string, NodeIdentity>,
): IdentityAllocation {
  const sorted = [...nodes].sort((a, b) => byName(a.name, b.name));
  const values = new Map<string, Partial<Record<IdentityField, number>>>();
  const problems: IdentityProblem[] = [];
  for (const rule of fieldRules(pools)) {
    const result = allocateField(rule, sorted, held);
    for (const [node, value] of result.values) values.set(node, { ...values.get(node), [rule.field]: value });
    problems.push(...result.problems);
  }
  const identities = new Map<string, NodeIdentity>();
  for (const { name } of sorted) {
    const v = values.get(name);
    if (v?.asn === undefined || v.routerId === undefined || v.vtepIp === undefined) continue;
    identities.set(name, { asn: v.asn, routerId: numberToIpv4(v.routerId), vtepIp: numberToIpv4(v.vtepIp) });
  }
  problems.sort((a, b) => byName(a.node, b.node) || byName(a.field, b.field));
  return { identities, problems };
}

interface FieldResult {
  readonly values: Map<string, number>;
  readonly problems: IdentityProblem[];
}

function heldValue(rule: FieldRule, identity: NodeIdentity | undefined): number | undefined {
  if (identity === undefined) return undefined;
  const value = identity[rule.field];
  return typeof value === 'number' ? value : ipv4ToNumber(value);
}

/** One field for every node: annotations first, then what nodes hold, then the pool's lowest free values. */
function allocateField(
  rule: FieldRule,
  nodes: readonly IdentityClaim[],
  held: ReadonlyMap<string, NodeIdentity>,
): FieldResult {
  const values = new Map<string, number>();
  const problems: IdentityProblem[] = [];
  const problem = (node: string, reason: IdentityProblemReason, message: string) =>
    problems.push({ node, field: rule.field, reason, message });
  const current = new Set(nodes.map((n) => n.name));

  // What each node asks for by annotation; a value that does not parse is that node's problem.
  const annotated = new Map<string, number>();
  for (const node of nodes) {
    const text = node.annotations?.[rule.annotation];
    if (text === undefined) continue;
    const value = rule.parse(text);
    if (value === undefined)
      problem(
        node.name,
        'InvalidAnnotation',
        `annotation ${rule.annotation}=${JSON.stringify(text)} is not a valid ${rule.field}`,
      );
    else annotated.set(node.name, value);
  }
  const invalid = new Set(problems.map((p) => p.node));

  if (rule.shared) {
    for (const node of nodes)
      if (!invalid.has(node.name)) values.set(node.name, annotated.get(node.name) ?? rule.pool.first);
    return { values, problems };
  }

  // Values held by nodes without an annotation for this field (gone nodes included), in the pool:
  // they are kept, and an annotation of another node naming one is a conflict, not a move.
  const holders = new Map<number, string>();
  for (const name of [...held.keys()].sort(byName)) {
    if (annotated.has(name) || invalid.has(name)) continue;
    const value = heldValue(rule, held.get(name));
    if (value === undefined || !rule.pool.contains(value) || holders.has(value)) continue;
    holders.set(value, name);
  }

  // Annotations: a value several nodes ask for goes to the one that holds it already, else to none.
  const claimants = new Map<number, string[]>();
  for (const [name, value] of annotated) claimants.set(value, [...(claimants.get(value) ?? []), name]);
  const taken = new Map<number, string>(holders);
  for (const [value, names] of claimants) {
    const text = rule.format(value);
    const holder = holders.get(value);
    if (holder !== undefined) {
      const state = current.has(holder) ? 'holds' : 'was deleted and still holds';
      for (const name of names)
        problem(
          name,
          'AnnotationConflict',
          `annotation ${rule.annotation}=${text}: node ${holder} ${state} it`,
        );
      continue;
    }
    const keeper = names.length === 1 ? names[0] : names.find((n) => heldValue(rule, held.get(n)) === value);
    for (const name of names) {
      if (name === keeper) continue;
      const others = names.filter((n) => n !== name).join(', ');
      problem(name, 'DuplicateAnnotation', `annotation ${rule.annotation}=${text} is on node ${others} too`);
    }
    if (keeper !== undefined) {
      values.set(keeper, value);
      taken.set(value, keeper);
    }
  }

  // Nodes without an annotation: what they hold, or the lowest free value of the pool.
  let cursor = rule.pool.first;
  for (const node of nodes) {
    if (annotated.has(node.name) || invalid.has(node.name)) continue;
    const own = heldValue(rule, held.get(node.name));
    if (own !== undefined && taken.get(own) === node.name) {
      values.set(node.name, own);
      continue;
    }
    while (cursor <= rule.pool.last && (taken.has(cursor) || !rule.pool.contains(cursor))) cursor++;
    if (cursor > rule.pool.last) {
      problem(node.name, 'PoolExhausted', `no free ${rule.field} left in ${rule.pool.description}`);
      continue;
    }
    values.set(node.name, cursor);
    taken.set(cursor, node.name);
  }
  return { values, problems };
}
