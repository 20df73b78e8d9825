import { z } from 'zod';
import { InterfaceName, MacAddress } from '@fabrik/api';
import {
  AddressSpecSchema,
  RouteSpecSchema,
  desiredRouteKey,
  observedRouteKey,
  routeProtocolNumber,
  type AddressSpec,
  type NetlinkBatchOp,
  type ObservedLink,
  type ObservedRoute,
  type ObservedState,
  type RouteSpec,
} from '@fabrik/netcore/netlink';

// The single-NIC case, pure: a bridge's physical interface that holds the node's addresses and
// routes hands them to the bridge's local port (which takes the NIC's MAC), and gets them back on
// cleanup. What the NIC held is recorded in a journal before anything moves; every step reads the
// journal and the kernel afresh, so a process killed at any step finishes (or rolls back) on
// restart. The side effects are in host-agent.ts.

/**
 * The last step done. Forward: `begin` (journal written: what the NIC holds) -> `bridged` (the NIC
 * is an uplink, the local port has its MAC) -> `moved` (addresses and routes on the local port).
 * Back: `restoring` (decided) -> `unbridged` (the NIC left the bridge) -> journal removed once the
 * addresses and routes are on the NIC again.
 */
export const MIGRATION_STEPS = ['begin', 'bridged', 'moved', 'restoring', 'unbridged'] as const;
export type MigrationStep = (typeof MIGRATION_STEPS)[number];

export const MigrationJournal = z
  .object({
    bridge: InterfaceName,
    nic: InterfaceName,
    mac: MacAddress,
    /** The NIC's global addresses, with their flags (link-local addresses stay: the kernel makes them). */
    addresses: z.array(AddressSpecSchema),
    /** The routes through the NIC, as they were (`dev` = the NIC), with their protocol numbers. */
    routes: z.array(RouteSpecSchema),
    step: z.enum(MIGRATION_STEPS),
    startedAt: z.iso.datetime(),
  })
  .strict();
export type MigrationJournal = z.infer<typeof MigrationJournal>;

/** Moving towards the bridge, or back to the NIC. */
export const directionOf = (step: MigrationStep): 'to-bridge' | 'to-nic' =>
  step === 'restoring' || step === 'unbridged' ? 'to-nic' : 'to-bridge';

const isLinkLocal = (address: string): boolean => /^fe[89ab]/i.test(address);

/** The addresses that make a NIC "hold the node's addresses": global ones (not link-local, not host scope). */
export const globalAddresses = (link: ObservedLink | undefined): AddressSpec[] =>
  (link?.addresses ?? [])
    .filter((a) => (a.family === 'inet' || a.family === 'inet6') && a.scope !== 'host' && a.scope !== 'link')
    .filter((a) => !isLinkLocal(a.address))
    .map((a) => ({
      address: a.address,
      ...(a.nodad ? { nodad: true } : {}),
      ...(a.noprefixroute ? { noprefixroute: true } : {}),
    }));

/**
 * Routes the kernel makes and removes by itself: the local table, router advertisements, and the
 * prefix routes of addresses (protocol kernel at the kernel's own metric; a network manager that
 * sets `noprefixroute` and installs its prefix route at another metric has that route moved).
 */
export function isAutomaticRoute(r: ObservedRoute): boolean {
  if (r.table === 255 || r.protocol === 'ra') return true;
  if (r.type !== 'unicast' && r.type !== 'blackhole' && r.type !== 'unreachable' && r.type !== 'prohibit')
    return true;
  return r.protocol === 'kernel' && (r.metric ?? 0) === (r.family === 'inet6' ? 256 : 0);
}

/** An observed route as a spec that re-creates it, or why it cannot be (pure). */
export function routeSpecOf(r: ObservedRoute): RouteSpec | string {
  const protocol = routeProtocolNumber(r.protocol);
  if (protocol === undefined) return `route ${r.dst}: unknown protocol ${JSON.stringify(r.protocol)}`;
  const spec = {
    dst: r.dst,
    ...(r.type === 'unicast' ? {} : { type: r.type }),
    ...(r.table === 254 ? {} : { table: r.table }),
    ...(r.type === 'unicast' && r.dev !== undefined ? { dev: r.dev } : {}),
    ...(r.via !== undefined ? { via: r.via } : {}),
    ...(r.src !== undefined ? { src: r.src } : {}),
    ...(r.tos !== 0 ? { tos: r.tos } : {}),
    ...(r.metric !== undefined ? { metric: r.metric } : {}),
    protocol,
    ...(r.scope !== 0 ? { scope: r.scope } : {}),
    ...(r.mtu !== undefined ? { mtu: r.mtu } : {}),
    ...(r.advmss !== undefined ? { advmss: r.advmss } : {}),
    ...(r.dst === 'default' ? { family: r.family } : {}),
    ...(r.onlink ? { onlink: true } : {}),
  };
  const parsed = RouteSpecSchema.safeParse(spec);
  return parsed.success
    ? parsed.data
    : `route ${r.dst}: ${parsed.error.issues[0]?.message ?? 'not supported'}`;
}

/** The routes through `dev` that are not the kernel's own, as specs; unsupported ones are listed. */
export function routesThrough(
  dev: string,
  routes: readonly ObservedRoute[],
): { specs: RouteSpec[]; unsupported: string[] } {
  const specs: RouteSpec[] = [];
  const unsupported: string[] = [];
  for (const r of routes) {
    if (r.dev !== dev || isAutomaticRoute(r)) continue;
    const spec = routeSpecOf(r);
    if (typeof spec === 'string') unsupported.push(spec);
    else specs.push(spec);
  }
  return { specs, unsupported };
}

/** The journal of a migration about to start: what the NIC holds now. */
export function beginMigration(
  bridge: string,
  nic: ObservedLink,
  routes: readonly ObservedRoute[],
  now: Date,
): { journal: MigrationJournal; unsupported: string[] } {
  const { specs, unsupported } = routesThrough(nic.spec.name, routes);
  return {
    journal: {
      bridge,
      nic: nic.spec.name,
      mac: nic.spec.mac ?? '',
      addresses: globalAddresses(nic),
      routes: specs,
      step: 'begin',
      startedAt: now.toISOString(),
    },
    unsupported,
  };
}

/**
 * While the node's addresses live on the bridge, whatever appears on the NIC (a network manager
 * putting the address back, a DHCP client adding a route) joins the journal, so that it moves to
 * the bridge now and back to the NIC on cleanup. Returns the journal unchanged when nothing is new.
 */
export function adoptFromNic(
  journal: MigrationJournal,
  observed: ObservedState,
): { journal: MigrationJournal; adopted: string[] } {
  const nic = observed.links.find((l) => l.spec.name === journal.nic);
  const known = new Set(journal.addresses.map((a) => a.address));
  const addresses = globalAddresses(nic).filter((a) => !known.has(a.address));
  const knownRoutes = new Set(journal.routes.map(desiredRouteKey));
  const routes = routesThrough(journal.nic, observed.routes ?? []).specs.filter(
    (r) => !knownRoutes.has(desiredRouteKey(r)),
  );
  if (addresses.length === 0 && routes.length === 0) return { journal, adopted: [] };
  return {
    journal: {
      ...journal,
      addresses: [...journal.addresses, ...addresses],
      routes: [...journal.routes, ...routes],
    },
    adopted: [...addresses.map((a) => `address ${a.address}`), ...routes.map((r) => `route ${r.dst}`)],
  };
}

/**
 * The netlink operations (one `ip -batch`) that put the journal's addresses and routes on the
 * target (the bridge's local port, or the NIC when moving back) and take them off the source
 * (pure; empty when done). Order: target up, addresses on the target, routes replaced onto the
 * target (same kernel key: the route moves in one step, there is never no default route), then the
 * addresses off the source, which takes the source's remaining prefix routes with them.
 * Moving to the bridge adds IPv6 addresses without DAD: the same MAC held them a moment ago.
 */
export function planMove(journal: MigrationJournal, observed: ObservedState): NetlinkBatchOp[] {
  const toBridge = directionOf(journal.step) === 'to-bridge';
  const [source, target] = toBridge ? [journal.nic, journal.bridge] : [journal.bridge, journal.nic];
  const links = new Map(observed.links.map((l) => [l.spec.name, l]));
  const targetLink = links.get(target);
  if (!targetLink)
    throw new Error(`${target} does not exist: cannot move ${journal.nic}'s addresses onto it`);
  const ops: NetlinkBatchOp[] = [];
  if (!targetLink.spec.up) ops.push({ op: 'linkSetUp', name: target });
  const onTarget = new Set((targetLink.addresses ?? []).map((a) => a.address));
  for (const a of journal.addresses) {
    if (onTarget.has(a.address)) continue;
    const address: AddressSpec = toBridge
      ? {
          address: a.address,
          ...(a.noprefixroute ? { noprefixroute: true } : {}),
          ...(a.address.includes(':') ? { nodad: true } : {}),
        }
      : a;
    ops.push({ op: 'addrAdd', dev: target, address });
  }
  const observedByKey = new Map<string, ObservedRoute>();
  for (const r of observed.routes ?? []) if (!isAutomaticRoute(r)) observedByKey.set(observedRouteKey(r), r);
  for (const r of journal.routes) {
    const want = { ...r, dev: target };
    const have = observedByKey.get(desiredRouteKey(want));
    if (!have || have.dev !== target || have.via !== r.via || (have.onlink ?? false) !== (r.onlink ?? false))
      ops.push({ op: 'routeReplace', route: want });
  }
  const sourceLink = links.get(source);
  const journalled = new Set(journal.addresses.map((a) => a.address));
  for (const a of sourceLink?.addresses ?? [])
    if (journalled.has(a.address)) ops.push({ op: 'addrDel', dev: source, address: { address: a.address } });
  return ops;
}

/** What to do about one bridge's single NIC in this pass. */
export type MigrationDecision =
  /** The NIC holds addresses and no journal exists yet: snapshot it and move. */
  | { readonly kind: 'start'; readonly bridge: string; readonly nic: ObservedLink }
  /** Moving to (or kept on) the bridge. */
  | { readonly kind: 'forward'; readonly journal: MigrationJournal }
  /** Moving back to the NIC (the bridge or the NIC left the configuration, or cleanup). */
  | { readonly kind: 'back'; readonly journal: MigrationJournal };

export interface MigrationDecisions {
  readonly decisions: readonly MigrationDecision[];
  /** NICs that must not join their bridge in this pass (their addresses cannot move now). */
  readonly heldBack: ReadonlySet<string>;
  readonly problems: readonly string[];
}

/**
 * Decides, per bridge, whether a NIC's addresses move to it, stay there, or go back (pure). A
 * journal is followed to its end: a restore that started finishes before the NIC may migrate
 * again. Two NICs of one bridge holding addresses cannot both hand them to its one local port:
 * both are held back and reported.
 */
export function decideMigrations(
  bridges: readonly { readonly name: string; readonly nics: readonly string[] }[],
  journals: ReadonlyMap<string, MigrationJournal>,
  observed: ObservedState,
  options: { readonly cleanup?: boolean } = {},
): MigrationDecisions {
  const links = new Map(observed.links.map((l) => [l.spec.name, l]));
  const decisions: MigrationDecision[] = [];
  const heldBack = new Set<string>();
  const problems: string[] = [];
  const nicsInJournals = new Set([...journals.values()].map((j) => j.nic));
  for (const journal of journals.values()) {
    const bridge = bridges.find((b) => b.name === journal.bridge);
    const wanted = !options.cleanup && bridge !== undefined && bridge.nics.includes(journal.nic);
    if (wanted && directionOf(journal.step) === 'to-bridge') decisions.push({ kind: 'forward', journal });
    else {
      decisions.push({ kind: 'back', journal });
      // Configured elsewhere meanwhile: it joins only once its addresses are back on it.
      if (bridges.some((b) => b.nics.includes(journal.nic))) heldBack.add(journal.nic);
    }
  }
  if (options.cleanup) return { decisions, heldBack, problems };
  for (const b of bridges) {
    if (journals.has(b.name)) continue;
    const holders = b.nics.filter((n) => !nicsInJournals.has(n) && globalAddresses(links.get(n)).length > 0);
    if (holders.length === 1) decisions.push({ kind: 'start', bridge: b.name, nic: links.get(holders[0]!)! });
    else if (holders.length > 1) {
      for (const n of holders) heldBack.add(n);
      problems.push(
        `bridge ${b.name}: ${holders.join(' and ')} each hold addresses; only one NIC per bridge can hand them to the bridge (left out of it)`,
      );
    }
  }
  return { decisions, heldBack, problems };
}
