import type { BgpPeering, Layer2Network, Vrf } from '@fabrik/api';
import { scheduledKey, type ScheduledObject } from '@fabrik/agent-runtime';

// The objects a node's intent is built from, one by one (pure): what the agent applies, keeps
// and reports per object. Two sets compare object by object: a change is an object added,
// changed (spec, or a BGPPeering's password) or removed.

/** The VRFs, Layer2Networks and BGPPeerings of a node's intent, with the BGPPeerings' passwords. */
export interface NodeObjects {
  readonly vrfs: readonly Vrf[];
  readonly layer2Networks: readonly Layer2Network[];
  readonly bgpPeerings: readonly BgpPeering[];
  /** By BGPPeering name: the password read from its Secret or file. */
  readonly passwords: ReadonlyMap<string, string>;
}

export const NO_OBJECTS: NodeObjects = {
  vrfs: [],
  layer2Networks: [],
  bgpPeerings: [],
  passwords: new Map(),
};

/** Every object by {@link scheduledKey} (`Layer2Network/web`). */
export function objectsByKey(objects: NodeObjects): Map<string, ScheduledObject> {
  return new Map(
    [...objects.vrfs, ...objects.layer2Networks, ...objects.bgpPeerings].map((o) => [scheduledKey(o), o]),
  );
}

/** What decides how `key`'s object is applied: its spec, and a BGPPeering's password. */
function versionOf(objects: NodeObjects, byKey: ReadonlyMap<string, ScheduledObject>, key: string): string {
  const o = byKey.get(key);
  if (!o) return '';
  return JSON.stringify([
    o.spec,
    o.kind === 'BGPPeering' ? (objects.passwords.get(o.metadata.name) ?? '') : '',
  ]);
}

/** The order changes are tried in: what others build on (VRFs) first. */
const KIND_ORDER: Readonly<Record<ScheduledObject['kind'], number>> = {
  VRF: 0,
  Layer2Network: 1,
  BGPPeering: 2,
};
const kindOf = (key: string) => key.slice(0, key.indexOf('/')) as ScheduledObject['kind'];

/** The keys of the objects that differ between `from` and `to` (added, changed, removed), VRFs first. */
export function changedKeys(from: NodeObjects, to: NodeObjects): string[] {
  const a = objectsByKey(from);
  const b = objectsByKey(to);
  return [...new Set([...a.keys(), ...b.keys()])]
    .filter((k) => versionOf(from, a, k) !== versionOf(to, b, k))
    .sort((x, y) => KIND_ORDER[kindOf(x)] - KIND_ORDER[kindOf(y)] || (x < y ? -1 : x > y ? 1 : 0));
}

/** `key`'s object has the same version in both sets (or is absent from both). */
export function sameVersion(a: NodeObjects, b: NodeObjects, key: string): boolean {
  return versionOf(a, objectsByKey(a), key) === versionOf(b, objectsByKey(b), key);
}

/** `from` with the objects of `keys` as `to` has them (added, replaced or removed). */
export function withChanges(from: NodeObjects, to: NodeObjects, keys: Iterable<string>): NodeObjects {
  const changing = new Set(keys);
  const pick = <T extends ScheduledObject>(a: readonly T[], b: readonly T[]): T[] =>
    [
      ...a.filter((o) => !changing.has(scheduledKey(o))),
      ...b.filter((o) => changing.has(scheduledKey(o))),
    ].sort((x, y) => (x.metadata.name < y.metadata.name ? -1 : x.metadata.name > y.metadata.name ? 1 : 0));
  const bgpPeerings = pick(from.bgpPeerings, to.bgpPeerings);
  const source = (name: string) => (changing.has(`BGPPeering/${name}`) ? to : from);
  return {
    vrfs: pick(from.vrfs, to.vrfs),
    layer2Networks: pick(from.layer2Networks, to.layer2Networks),
    bgpPeerings,
    passwords: new Map(
      bgpPeerings.flatMap((p) => {
        const password = source(p.metadata.name).passwords.get(p.metadata.name);
        return password === undefined ? [] : [[p.metadata.name, password] as const];
      }),
    ),
  };
}

/**
 * `from` with each object that `to` holds in the same version taken as `to` has it: a newer
 * generation of the same spec (a file rewritten, a field this agent does not know changed) is
 * what the node runs, so the status reports that generation rather than the one applied first.
 */
export function refreshUnchanged(from: NodeObjects, to: NodeObjects): NodeObjects {
  const a = objectsByKey(from);
  const b = objectsByKey(to);
  const unchanged = [...a.keys()].filter((k) => b.has(k) && versionOf(from, a, k) === versionOf(to, b, k));
  return withChanges(from, to, unchanged);
}

/**
 * The generation of every object of `objects`, by kind and name (0 when the source has none, as a
 * file), names in order: the status reads the same whichever path (a whole apply, or objects
 * applied one by one) built `objects`.
 */
export function generationsOf(objects: NodeObjects): {
  vrfs: Record<string, number>;
  layer2Networks: Record<string, number>;
  bgpPeerings: Record<string, number>;
} {
  const of = (list: readonly ScheduledObject[]) =>
    Object.fromEntries(
      list
        .map((o) => [o.metadata.name, o.metadata.generation ?? 0] as const)
        .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)),
    );
  return {
    vrfs: of(objects.vrfs),
    layer2Networks: of(objects.layer2Networks),
    bgpPeerings: of(objects.bgpPeerings),
  };
}
