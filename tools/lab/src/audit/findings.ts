// The node audit's vocabulary: what fabrik holds on a node (the inventory), what the objects of
// the cluster explain (the expectation), and the difference between the two (findings).

/** Where a finding was made. */
export type AuditArea = 'link' | 'ovs' | 'frr' | 'file' | 'ippool';

/** One thing the node holds that nothing explains (leaked), or that the objects ask for and is absent (missing). */
export interface AuditFinding {
  readonly area: AuditArea;
  /** What it is, readable in a report: `hbr-a/br2300 (agent-netns)`, `frr lab-a-hbr: vni 2300`. */
  readonly what: string;
}

export interface AuditResult {
  readonly leaked: readonly AuditFinding[];
  readonly missing: readonly AuditFinding[];
}

/** A link carrying fabrik's ownership mark (ifalias `fabrik:<owner>[:<label>]`). */
export interface OwnedLink {
  readonly netns: string;
  readonly name: string;
  readonly owner: string;
  readonly label?: string;
}

/** A Bridge or Port row of Open vSwitch with `external_ids:fabrik-owner`. */
export interface OwnedOvsRow {
  readonly table: 'Bridge' | 'Port';
  readonly name: string;
  readonly owner: string;
}

/**
 * A line of an FRR running configuration with the blocks it sits in (outermost first), and the
 * VRFs and VNIs it names, itself or through its blocks.
 */
export interface FrrConfigLine {
  readonly pathspace: string;
  readonly context: readonly string[];
  readonly line: string;
  readonly vrfs: readonly string[];
  readonly vnis: readonly number[];
}

/** Everything fabrik-marked one node holds, as observed. */
export interface NodeInventory {
  readonly links: readonly OwnedLink[];
  readonly ovsRows: readonly OwnedOvsRow[];
  readonly frrLines: readonly FrrConfigLine[];
  /** Regular files under the audited directories (absolute paths). */
  readonly files: readonly string[];
}

/** What the cluster's objects explain on one node: exactly what should be there. */
export interface NodeExpectation {
  /** Owned links, keyed `<netns>/<name>`, each with its owner. */
  readonly links: ReadonlyMap<string, string>;
  /** Owned OVS rows, keyed `<table>/<name>`, each with its owner. */
  readonly ovsRows: ReadonlyMap<string, string>;
  /**
   * VRFs and VNIs FRR must name, per pathspace; `optionalVnis` may be named but need not be (an L2
   * VNI has a `vni` block only when it has route targets of its own or advertises its SVI).
   */
  readonly frr: ReadonlyMap<
    string,
    {
      readonly vrfs: ReadonlySet<string>;
      readonly vnis: ReadonlySet<number>;
      readonly optionalVnis?: ReadonlySet<number>;
    }
  >;
  /** Files the audited directories should hold (absolute paths). */
  readonly files: ReadonlySet<string>;
}

export const linkKey = (netns: string, name: string): string => `${netns}/${name}`;
export const ovsRowKey = (table: OwnedOvsRow['table'], name: string): string => `${table}/${name}`;

/**
 * The difference between a node and its expectation. Leaked: owned by fabrik, explained by no
 * object (or owned by another fabrik component than the one that should own it). Missing: an
 * object asks for it and it is not there (a node that has not converged).
 */
export function auditNode(inventory: NodeInventory, expected: NodeExpectation): AuditResult {
  const leaked: AuditFinding[] = [];
  const missing: AuditFinding[] = [];

  const seenLinks = new Set<string>();
  for (const l of inventory.links) {
    const key = linkKey(l.netns, l.name);
    seenLinks.add(key);
    const owner = expected.links.get(key);
    if (owner !== l.owner)
      leaked.push({
        area: 'link',
        what: `${key} (${l.owner}${l.label ? `:${l.label}` : ''}${owner ? `, expected owner ${owner}` : ''})`,
      });
  }
  for (const [key, owner] of expected.links)
    if (!seenLinks.has(key)) missing.push({ area: 'link', what: `${key} (${owner})` });

  const seenRows = new Set<string>();
  for (const r of inventory.ovsRows) {
    const key = ovsRowKey(r.table, r.name);
    seenRows.add(key);
    const owner = expected.ovsRows.get(key);
    if (owner !== r.owner)
      leaked.push({ area: 'ovs', what: `${key} (${r.owner}${owner ? `, expected owner ${owner}` : ''})` });
  }
  for (const [key, owner] of expected.ovsRows)
    if (!seenRows.has(key)) missing.push({ area: 'ovs', what: `${key} (${owner})` });

  const named = new Map<string, { vrfs: Set<string>; vnis: Set<number> }>();
  for (const f of inventory.frrLines) {
    const allowed = expected.frr.get(f.pathspace);
    const strangeVrfs = f.vrfs.filter((v) => !allowed?.vrfs.has(v));
    const strangeVnis = f.vnis.filter((v) => !allowed?.vnis.has(v) && !allowed?.optionalVnis?.has(v));
    if (strangeVrfs.length + strangeVnis.length > 0)
      leaked.push({ area: 'frr', what: `${f.pathspace}: ${[...f.context, f.line].join(' / ')}` });
    const seen = named.get(f.pathspace) ?? { vrfs: new Set(), vnis: new Set() };
    named.set(f.pathspace, seen);
    for (const v of f.vrfs) seen.vrfs.add(v);
    for (const v of f.vnis) seen.vnis.add(v);
  }
  for (const [pathspace, allowed] of expected.frr) {
    const seen = named.get(pathspace);
    for (const v of allowed.vrfs)
      if (!seen?.vrfs.has(v)) missing.push({ area: 'frr', what: `${pathspace}: vrf ${v}` });
    for (const v of allowed.vnis)
      if (!seen?.vnis.has(v)) missing.push({ area: 'frr', what: `${pathspace}: vni ${v}` });
  }

  const files = new Set(inventory.files);
  for (const f of files) if (!expected.files.has(f)) leaked.push({ area: 'file', what: f });
  for (const f of expected.files) if (!files.has(f)) missing.push({ area: 'file', what: f });

  return { leaked, missing };
}

/** Findings as report lines, at most `limit` of each kind. */
export function formatAudit(result: AuditResult, limit = 20): string {
  const list = (title: string, findings: readonly AuditFinding[]) => {
    if (findings.length === 0) return [];
    const shown = findings.slice(0, limit).map((f) => `  ${f.area}: ${f.what}`);
    const more = findings.length > limit ? [`  ... and ${findings.length - limit} more`] : [];
    return [`${title} (${findings.length}):`, ...shown, ...more];
  };
  return [...list('leaked', result.leaked), ...list('missing', result.missing)].join('\n');
}

/** Both audits of a cluster together (nodes and IPPools). */
export function mergeAudits(...results: readonly AuditResult[]): AuditResult {
  return {
    leaked: results.flatMap((r) => r.leaked),
    missing: results.flatMap((r) => r.missing),
  };
}
