import type { IntentSnapshot } from '@fabrik/agent-runtime';
import type { NetlinkBatchOp, ObservedState } from '@fabrik/netcore/netlink';
import { trunkVlanName } from './desired.js';

// Host-side `tr.<vid>` are bridge ports of tenant networks, not host interfaces: an address on
// one (the kernel's IPv6 link-local, by default) would make the host, its kubelet and the agents'
// listeners reachable from tenant Pods on that network. IPv6 address generation is off on them
// (before they come up, where agent-host brings them up) and a link-local address they got
// anyway (made before this rule, or by hand) is deleted. IPv4 addresses are never generated.

/** The `tr.<vid>` whose sysctls a pass reads: one per Layer2Network the source holds (a superset of those served). */
export function trunkVlanNamesOf(snapshot: IntentSnapshot | undefined): string[] {
  const names = new Set<string>();
  for (const o of snapshot?.objects ?? []) {
    const vlan = (o.spec as { vlan?: unknown } | undefined)?.vlan;
    if (o.kind === 'Layer2Network' && Number.isInteger(vlan)) names.add(trunkVlanName(vlan as number));
  }
  return [...names].sort();
}

export interface AddressFreeChanges {
  /** Links whose IPv6 address generation is to be turned off (`addrgenmode none`). */
  readonly generationOff: readonly string[];
  /** The IPv6 link-local addresses to delete. */
  readonly deletes: readonly NetlinkBatchOp[];
}

/**
 * What keeps `names` free of addresses, as `observed` shows them (pure). `observed` must hold the
 * sysctls of `names` (observe with `sysctlsOf`); a link that does not exist is left to be made.
 */
export function addressFreeChanges(names: readonly string[], observed: ObservedState): AddressFreeChanges {
  const wanted = new Set(names);
  const links = observed.links.filter((l) => wanted.has(l.spec.name));
  return {
    generationOff: links
      .filter((l) => observed.sysctls?.get(l.spec.name)?.addrGenMode !== 'none')
      .map((l) => l.spec.name),
    deletes: links.flatMap((l) =>
      (l.addresses ?? [])
        .filter((a) => a.family === 'inet6' && a.scope === 'link')
        .map((a) => ({ op: 'addrDel' as const, dev: l.spec.name, address: { address: a.address } })),
    ),
  };
}
