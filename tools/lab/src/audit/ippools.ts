import type { AuditFinding, AuditResult } from './findings.js';

// IPPools against the attachments that exist: every allocated address belongs to a live
// attachment, every live attachment holds one address of each of its pools, and `usage` counts
// what `ipAddresses` holds.

/** The parts of an IPPool object the audit reads (the CRD's shape). */
export interface AuditedIpPool {
  readonly metadata: { readonly name: string };
  readonly status?: {
    readonly ipAddresses?: readonly {
      readonly ipAddress: string;
      readonly owner?: { readonly pod?: { readonly containerID: string; readonly ifName: string } };
    }[];
    readonly usage?: { readonly used: number };
  };
}

/** A Pod attachment as the runtime made it: which pools its network allocates from. */
export interface LiveAttachment {
  readonly containerId: string;
  readonly ifname: string;
  readonly pools: readonly string[];
}

const ownerKey = (containerId: string, ifname: string) => `${containerId}/${ifname}`;

export function auditIpPools(
  pools: readonly AuditedIpPool[],
  attachments: readonly LiveAttachment[],
): AuditResult {
  const leaked: AuditFinding[] = [];
  const missing: AuditFinding[] = [];
  const byPool = new Map<string, Set<string>>();
  for (const a of attachments)
    for (const p of a.pools) {
      const set = byPool.get(p) ?? new Set();
      set.add(ownerKey(a.containerId, a.ifname));
      byPool.set(p, set);
    }
  for (const pool of pools) {
    const name = pool.metadata.name;
    const entries = pool.status?.ipAddresses ?? [];
    const live = byPool.get(name) ?? new Set<string>();
    const held = new Set<string>();
    for (const e of entries) {
      const pod = e.owner?.pod;
      const key = pod ? ownerKey(pod.containerID, pod.ifName) : undefined;
      if (key === undefined || !live.has(key) || held.has(key))
        leaked.push({ area: 'ippool', what: `${name}: ${e.ipAddress} (${key ?? 'no pod owner'})` });
      if (key !== undefined) held.add(key);
    }
    for (const key of live)
      if (!held.has(key)) missing.push({ area: 'ippool', what: `${name}: no address for ${key}` });
    const used = pool.status?.usage?.used ?? 0;
    if (used !== entries.length)
      leaked.push({
        area: 'ippool',
        what: `${name}: usage.used ${used} but ${entries.length} address(es) in status.ipAddresses`,
      });
  }
  const known = new Set(pools.map((p) => p.metadata.name));
  for (const [pool, keys] of byPool)
    if (!known.has(pool))
      for (const key of keys) missing.push({ area: 'ippool', what: `${pool}: no such pool for ${key}` });
  return { leaked, missing };
}
