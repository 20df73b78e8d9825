import { InvalidDesiredStateError, OwnershipConflictError } from './errors.js';
import {
  bridgeChanges,
  lowerLinkOf,
  needsRecreate,
  type BridgePortFlags,
  type BridgeSpec,
  type LinkSpec,
} from './links/index.js';
import { NUMERIC_SYSCTLS, type InterfaceSysctls, type NumericSysctls } from './objects.js';
import { parseDesiredState, type DesiredLink, type DesiredState } from './desired.js';
import type { ObservedLink } from './decode/link.js';
import type { ObserveScope, ObservedState } from './observe.js';
import { FABRIK_ROUTE_PROTOCOL, isOwnedBy, ownershipMark } from './ownership.js';
import type { LinkSetChanges, Plan, PlanOp, PlanOptions } from './plan-ops.js';
import { planAddresses } from './plan-addresses.js';
import { planRoutes } from './plan-routes.js';
import { planFdb, planNeighbours } from './plan-neighbours.js';

// The planner: links (ownership, recreate, create/enslave/up order) here; addresses, routes,
// neighbours and FDB entries in the plan-*.ts modules.

/**
 * What a plan of `desired` needs observed (links and addresses are always dumped): the object
 * types it uses, the routes of its protocol only (the planner reads no other route) and the
 * sysctls it sets only.
 */
export function observeScopeOf(desired: DesiredState, options: PlanOptions = {}): ObserveScope {
  const withSysctls = desired.links.filter((l) => l.sysctls !== undefined);
  const sysctlKeys = new Set(
    withSysctls.flatMap((l) =>
      Object.entries(l.sysctls ?? {})
        .filter(([, v]) => v !== undefined)
        .map(([k]) => k as keyof InterfaceSysctls),
    ),
  );
  return {
    routes: desired.routes !== undefined,
    ...(desired.routes !== undefined
      ? { routeProtocol: options.routeProtocol ?? FABRIK_ROUTE_PROTOCOL }
      : {}),
    neighbours: (desired.neighbours ?? []).length > 0,
    fdb: (desired.fdb ?? []).length > 0,
    sysctlsOf: withSysctls.map((l) => l.name),
    sysctlKeys: [...sysctlKeys].sort(),
  };
}

/**
 * `observed` with the unmarked links named in `adopt` carrying the owner's mark with an empty
 * label, which no desired link has (so the plan writes the real mark): links this
 * owner created whose marking a crash cut off (the kernel takes no ifalias at creation, so a link
 * is created, then marked). The plan then marks them as it marks any owned link whose label
 * differs, or deletes them when they are no longer desired. A link with any alias stays foreign.
 */
function withAdoptedLinks(
  observed: ObservedState,
  owner: string,
  adopt: ReadonlySet<string> | undefined,
): ObservedState {
  if (adopt === undefined || adopt.size === 0) return observed;
  return {
    ...observed,
    links: observed.links.map((o) =>
      adopt.has(o.spec.name) && !o.alias ? { ...o, alias: `${ownershipMark(owner)}:` } : o,
    ),
  };
}

/**
 * Computes the operations that turn `observed` into `desired`. Pure. Order: deletions (routes,
 * addresses, links; stacked links before their lower link), then creations (lower links first;
 * each `link add` followed by the line that marks it), then `link set` (mark of taken-over links,
 * mtu, mac, master; masters before their ports), port flags, addresses,
 * `up` of enslaved links (create, enslave, then up), routes, neighbours, FDB entries, sysctls.
 *
 * Only links whose ifalias carries `fabrik:<owner>` are changed or deleted; a desired name held by
 * any other link throws {@link OwnershipConflictError}. Invalid input throws
 * {@link InvalidDesiredStateError} naming the field. The plan of an applied state is empty.
 */
export function plan(
  desiredInput: DesiredState,
  observedInput: ObservedState,
  options: PlanOptions = {},
): Plan {
  const desired = parseDesiredState(desiredInput);
  const protocol = options.routeProtocol ?? FABRIK_ROUTE_PROTOCOL;
  const prune = options.prune ?? true;
  const owner = desired.owner;
  const observed = withAdoptedLinks(observedInput, owner, options.adopt);
  const byName = new Map(observed.links.map((l) => [l.spec.name, l]));
  const desiredByName = new Map<string, DesiredLink>();
  checkReferences(desired, byName, desiredByName);

  // Names that belong to the desired state: links, and veth peers that stay in this namespace.
  const desiredNames = new Set(desiredByName.keys());
  for (const l of desired.links)
    if (l.kind === 'veth' && l.peer.netns === undefined) desiredNames.add(l.peer.name);

  for (const l of desired.links) {
    const o = byName.get(l.name);
    if (o && !isOwnedBy(o.alias, owner))
      throw new OwnershipConflictError(l.name, o.alias, ownershipMark(owner));
  }

  // Links that will not survive: owned but not desired, and desired ones whose kind attributes
  // cannot change in place; links stacked on a vanishing link vanish with it (the kernel
  // deletes them), so they are recreated as well.
  const gone = new Set<string>();
  for (const o of observed.links) {
    if (!isOwnedBy(o.alias, owner)) continue;
    const d = desiredByName.get(o.spec.name);
    if ((prune && !desiredNames.has(o.spec.name)) || (d && needsRecreate(d, o.spec))) gone.add(o.spec.name);
  }
  for (let changed = true; changed;) {
    changed = false;
    for (const o of observed.links) {
      const lower = lowerLinkOf(o.spec);
      if (!gone.has(o.spec.name) && lower !== undefined && gone.has(lower) && isOwnedBy(o.alias, owner)) {
        gone.add(o.spec.name);
        changed = true;
      }
    }
  }
  const existing = (name: string): ObservedLink | undefined =>
    gone.has(name) ? undefined : byName.get(name);

  const deletes: PlanOp[] = [];
  const creates: PlanOp[] = [];
  const genModes: PlanOp[] = [];
  const sets: PlanOp[] = [];
  const ups: PlanOp[] = [];
  // The kernel applies a message's flags before its master (do_setlink, and rtnl_newlink for a new
  // link): `master M up` in one line would bring a port up before enslaving it, and zebra would see
  // an unenslaved vxlan come up. So a link that gets a master is brought up in a later line, after
  // its port flags and addresses: create, then enslave, then up.
  const pushSet = (name: string, changes: LinkSetChanges): void => {
    const { up, ...rest } = changes;
    if (typeof changes.master === 'string' && up !== undefined) {
      sets.push({ op: 'link-set', name, changes: rest });
      ups.push({ op: 'link-set', name, changes: { up } });
    } else if (Object.keys(changes).length > 0) sets.push({ op: 'link-set', name, changes });
  };
  const bridgeSets: PlanOp[] = [];
  const ports: PlanOp[] = [];
  const addrs: PlanOp[] = [];
  const sysctls: PlanOp[] = [];

  // Link deletions, stacked links first; deleting one end of a veth deletes the other.
  const deletedByKernel = new Set<string>();
  for (const name of [...gone].sort(
    (a, b) => observedDepth(b, byName) - observedDepth(a, byName) || a.localeCompare(b),
  )) {
    if (deletedByKernel.has(name)) continue;
    deletes.push({ op: 'link-del', name });
    const o = byName.get(name);
    if (o?.spec.kind === 'veth' && o.linkNetnsId === undefined && o.spec.peer.name !== undefined)
      deletedByKernel.add(o.spec.peer.name);
  }

  const desiredDepth = (l: LinkSpec, seen = 0): number => {
    const lower = lowerLinkOf(l);
    const d = lower === undefined ? undefined : desiredByName.get(lower);
    return d && seen < 16 ? desiredDepth(d, seen + 1) + 1 : 0;
  };
  const masterDepth = (l: LinkSpec, seen = 0): number => {
    const d = l.master ? desiredByName.get(l.master) : undefined;
    return d && seen < 16 ? masterDepth(d, seen + 1) + 1 : 0;
  };

  // A veth whose peer is declared as a desired link too (to give that end its own master, up
  // state or addresses): the pair is created once, by the end whose name sorts first; the other
  // end is then configured like a new link, without a `link add` of its own.
  const declaredPeer = (l: DesiredLink): DesiredLink | undefined => {
    if (l.kind !== 'veth' || l.peer.netns !== undefined) return undefined;
    const peer = desiredByName.get(l.peer.name);
    return peer?.kind === 'veth' && peer.peer.name === l.name ? peer : undefined;
  };
  const createdByPeer = (l: DesiredLink): boolean => {
    const peer = declaredPeer(l);
    return peer !== undefined && !existing(peer.name) && peer.name.localeCompare(l.name) < 0;
  };

  for (const l of [...desired.links].sort((a, b) => desiredDepth(a) - desiredDepth(b))) {
    const o = existing(l.name);
    const mark = ownershipMark(owner, l.alias);
    if (!o) {
      // A bridge's mtu given at creation is not sticky: the kernel lowers it to the smallest port
      // mtu as ports join. Set through `link set` (before any port is enslaved), it stays.
      const stickyMtu = l.kind === 'bridge' && l.mtu !== undefined;
      const byPeer = createdByPeer(l);
      if (!byPeer) {
        // The mark goes in the line right after the `link add`: if a later line of the batch fails,
        // every link created so far is already marked, and the next reconcile takes it over
        // instead of finding an unmarked (foreign) link of a desired name. A declared peer gets
        // its own mark there too.
        creates.push(
          { op: 'link-add', spec: stickyMtu ? { ...l, mtu: undefined } : l },
          { op: 'link-set', name: l.name, changes: { alias: mark, ...(stickyMtu ? { mtu: l.mtu } : {}) } },
        );
        if (l.kind === 'veth' && l.peer.netns === undefined) {
          const peer = declaredPeer(l);
          const peerMark = peer ? ownershipMark(owner, peer.alias) : mark;
          creates.push({ op: 'link-set', name: l.peer.name, changes: { alias: peerMark } });
        }
      }
      if (l.sysctls?.addrGenMode !== undefined)
        genModes.push({ op: 'link-addrgenmode', name: l.name, mode: l.sysctls.addrGenMode });
      pushSet(l.name, {
        ...(byPeer && l.mtu !== undefined ? { mtu: l.mtu } : {}),
        ...(l.master ? { master: l.master } : {}),
        ...(l.up ? { up: true } : {}),
      });
      if (l.port && hasAny(l.port)) ports.push({ op: 'port-set', name: l.name, flags: l.port });
      for (const a of l.addresses ?? [])
        addrs.push({ op: 'addr-add', dev: l.name, address: a, replace: false });
      const sys = withoutGenMode(l.sysctls);
      if (sys) sysctls.push({ op: 'sysctl-set', dev: l.name, sysctls: sys });
      continue;
    }
    // The master as it will be once deletions have run.
    const observedMaster = o.spec.master !== null && gone.has(o.spec.master) ? null : o.spec.master;
    const changes: { -readonly [K in keyof LinkSetChanges]: LinkSetChanges[K] } = {};
    if (o.alias !== mark) changes.alias = mark;
    if (l.mtu !== undefined && l.mtu !== o.spec.mtu) changes.mtu = l.mtu;
    if (l.mac !== undefined && l.mac.toLowerCase() !== o.spec.mac?.toLowerCase()) changes.mac = l.mac;
    if (l.master !== undefined && l.master !== observedMaster) changes.master = l.master;
    if (l.up !== undefined && l.up !== o.spec.up) changes.up = l.up;
    pushSet(l.name, changes);
    // Kind options the kernel changes in place (needsRecreate said the kinds match).
    const bridgeOptions = l.kind === 'bridge' ? bridgeChanges(l, o.spec as BridgeSpec) : undefined;
    if (bridgeOptions) bridgeSets.push({ op: 'bridge-set', name: l.name, options: bridgeOptions });
    if (l.kind === 'veth' && l.peer.netns === undefined && !declaredPeer(l)) {
      const peer = existing(l.peer.name);
      if (peer && peer.alias !== mark)
        sets.push({ op: 'link-set', name: l.peer.name, changes: { alias: mark } });
    }

    const observedGenMode = observed.sysctls?.get(l.name)?.addrGenMode;
    if (l.sysctls?.addrGenMode !== undefined && l.sysctls.addrGenMode !== observedGenMode) {
      genModes.push({ op: 'link-addrgenmode', name: l.name, mode: l.sysctls.addrGenMode });
    }
    if (l.port && hasAny(l.port)) {
      // Enslaving (again) resets the port flags to the kernel defaults.
      const flags = changes.master !== undefined || !o.port ? l.port : changedFlags(l.port, o.port);
      if (hasAny(flags)) ports.push({ op: 'port-set', name: l.name, flags });
    }
    if (l.addresses) addrs.push(...planAddresses(l.name, l.addresses, o.addresses ?? [], deletes));
    const sys = withoutGenMode(l.sysctls);
    if (sys) {
      const cur = observed.sysctls?.get(l.name);
      const diff: { -readonly [K in keyof NumericSysctls]: NumericSysctls[K] } = {};
      for (const k of NUMERIC_SYSCTLS) if (sys[k] !== undefined && sys[k] !== cur?.[k]) diff[k] = sys[k];
      if (Object.keys(diff).length > 0) sysctls.push({ op: 'sysctl-set', dev: l.name, sysctls: diff });
    }
  }
  // Masters are configured (and brought up) before the links enslaved to them.
  const setOrder = (op: PlanOp): number => {
    if (op.op !== 'link-set') return 0;
    const d = desiredByName.get(op.name);
    return d ? masterDepth(d) : 0;
  };
  sets.sort((a, b) => setOrder(a) - setOrder(b));
  ups.sort((a, b) => setOrder(a) - setOrder(b));

  const newLinks = new Set(desired.links.filter((l) => !existing(l.name)).map((l) => l.name));
  // Changing a link's mtu, mac or master makes the kernel flush its neighbour and FDB entries:
  // those are written again after the change.
  const flushed = new Set(newLinks);
  for (const op of sets)
    if (
      op.op === 'link-set' &&
      (op.changes.mtu !== undefined || op.changes.mac !== undefined || op.changes.master !== undefined)
    )
      flushed.add(op.name);
  const routeOps = planRoutes(desired, observed, protocol, newLinks, prune);
  const neighOps = planNeighbours(desired, observed, flushed);
  const fdbOps = planFdb(desired, observed, flushed);

  const routeDeletes = routeOps.filter((o) => o.op === 'route-del');
  const ops = [
    ...routeDeletes,
    ...deletes.filter((o) => o.op === 'addr-del'),
    ...deletes.filter((o) => o.op === 'link-del'),
    ...creates,
    ...genModes,
    ...sets,
    ...bridgeSets,
    ...ports,
    ...addrs,
    ...ups,
    ...routeOps.filter((o) => o.op !== 'route-del'),
    ...neighOps,
    ...fdbOps,
    ...sysctls,
  ];
  return { desired, options, scope: observeScopeOf(desired, options), ops };
}

function checkReferences(
  desired: DesiredState,
  observed: Map<string, ObservedLink>,
  byName: Map<string, DesiredLink>,
): void {
  desired.links.forEach((l, i) => {
    if (byName.has(l.name))
      throw new InvalidDesiredStateError(`links[${i}].name`, `duplicate link ${l.name}`);
    byName.set(l.name, l);
  });
  const known = (n: string): boolean => byName.has(n) || observed.has(n);
  desired.links.forEach((l, i) => {
    if (l.master && !known(l.master))
      throw new InvalidDesiredStateError(
        `links[${i}].master`,
        `no link named ${l.master} (desired or existing)`,
      );
    if (l.master === l.name)
      throw new InvalidDesiredStateError(`links[${i}].master`, 'a link cannot be its own master');
    const lower = lowerLinkOf(l);
    if (lower !== undefined && !known(lower)) {
      throw new InvalidDesiredStateError(
        `links[${i}].${l.kind === 'vxlan' ? 'dev' : 'parent'}`,
        `no link named ${lower} (desired or existing)`,
      );
    }
    if (l.port && !l.master)
      throw new InvalidDesiredStateError(`links[${i}].port`, 'port flags need a bridge master');
    if (l.kind === 'veth' && l.peer.netns === undefined && byName.has(l.peer.name)) {
      // Both ends may be declared, each naming the other as its peer.
      const peer = byName.get(l.peer.name)!;
      if (peer.kind !== 'veth' || peer.peer.name !== l.name || peer.peer.netns !== undefined)
        throw new InvalidDesiredStateError(
          `links[${i}].peer.name`,
          `${l.peer.name} is also a desired link, but not a veth whose peer is ${l.name}`,
        );
    }
  });
  const devExists = (field: string, dev: string | undefined): void => {
    if (dev !== undefined && !known(dev))
      throw new InvalidDesiredStateError(field, `no link named ${dev} (desired or existing)`);
  };
  desired.routes?.forEach((r, i) => devExists(`routes[${i}].dev`, r.dev));
  desired.neighbours?.forEach((n, i) => devExists(`neighbours[${i}].dev`, n.dev));
  desired.fdb?.forEach((f, i) => devExists(`fdb[${i}].dev`, f.dev));
}

function observedDepth(name: string, byName: Map<string, ObservedLink>, seen = 0): number {
  const o = byName.get(name);
  const lower = o ? lowerLinkOf(o.spec) : undefined;
  return lower !== undefined && byName.has(lower) && seen < 16
    ? observedDepth(lower, byName, seen + 1) + 1
    : 0;
}

const hasAny = (flags: BridgePortFlags): boolean =>
  flags.learning !== undefined || flags.neighSuppress !== undefined || flags.hairpin !== undefined;

function changedFlags(want: BridgePortFlags, have: Required<BridgePortFlags>): BridgePortFlags {
  return {
    ...(want.learning !== undefined && want.learning !== have.learning ? { learning: want.learning } : {}),
    ...(want.neighSuppress !== undefined && want.neighSuppress !== have.neighSuppress
      ? { neighSuppress: want.neighSuppress }
      : {}),
    ...(want.hairpin !== undefined && want.hairpin !== have.hairpin ? { hairpin: want.hairpin } : {}),
  };
}

function withoutGenMode(s: InterfaceSysctls | undefined): NumericSysctls | undefined {
  const set = NUMERIC_SYSCTLS.filter((k) => s?.[k] !== undefined);
  return s && set.length > 0 ? Object.fromEntries(set.map((k) => [k, s[k]])) : undefined;
}
