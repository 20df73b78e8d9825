import {
  checkIntentConflicts,
  parseBgpPeering,
  parseLayer2Network,
  parseVrf,
  type BgpPeering,
  type Layer2Network,
  type ObjectError,
  type ParseResult,
  type Vrf,
} from '@fabrik/api';
import { matchesLabelSelector } from '@fabrik/kube/labels';
import { objectRef, type IntentSnapshot } from './intent.js';

// The first step of both agents' desired state (pure): which VRF, Layer2Network and BGPPeering
// objects of the source apply to this node. Each object is validated on its own, scheduled by its nodeSelector
// against the Node's labels, then checked against the others (checkIntentConflicts); an object
// that fails a step is reported with the field at fault and skipped, the others go on.
// Version skew: fields a newer CRD added are dropped and reported (objectWarnings), the rest is
// applied. An object that fails a step and was applied before keeps its last applied version:
// a network is never deleted because this agent could not read or accept its new version.

export interface ScheduledIntent {
  /** Valid, scheduled on this node and free of conflicts, sorted by name. */
  readonly vrfs: readonly Vrf[];
  readonly layer2Networks: readonly Layer2Network[];
  readonly bgpPeerings: readonly BgpPeering[];
  /** Objects skipped as invalid or conflicting, or kept at their last applied version (sorted by kind and name). */
  readonly objectErrors: readonly ObjectError[];
  /** Objects scheduled without fields this agent does not know (sorted by kind and name). */
  readonly objectWarnings: readonly ObjectError[];
  /** Valid objects whose nodeSelector does not match this node (`VRF blue`). */
  readonly notScheduled: readonly string[];
}

export interface ScheduleOptions {
  /** The node's own VRF, which Layer2Networks may name without a VRF object. Default `hbr`. */
  readonly hbrVrf?: string;
  /**
   * The objects the node applied last, by {@link scheduledKey}: one whose current version is
   * invalid or conflicting is scheduled in this version instead (and reported).
   */
  readonly lastApplied?: ReadonlyMap<string, ScheduledObject>;
}

export type ScheduledObject = Vrf | Layer2Network | BgpPeering;
type Scheduled = ScheduledObject;

/** `Layer2Network/web`: the key of an object among the scheduled kinds (names are unique per kind). */
export const scheduledKey = (o: {
  readonly kind: string;
  readonly metadata: { readonly name: string };
}): string => `${o.kind}/${o.metadata.name}`;

/** `message` of an object refused whose last applied version stays applied. */
export const keptMessage = (message: string): string => `${message} (keeps its last applied state)`;

/** The kinds scheduled here, each with its parser; other kinds of the source are not looked at. */
const PARSERS: Readonly<Record<Scheduled['kind'], (o: unknown) => ParseResult<Scheduled>>> = {
  VRF: (o) => parseVrf(o, { unknownFields: 'ignore' }),
  Layer2Network: (o) => parseLayer2Network(o, { unknownFields: 'ignore' }),
  BGPPeering: (o) => parseBgpPeering(o, { unknownFields: 'ignore' }),
};
const isScheduledKind = (kind: string): kind is Scheduled['kind'] => Object.hasOwn(PARSERS, kind);

/**
 * Sorts the source's VRF, Layer2Network and BGPPeering objects into those this node applies and
 * those it skips. Without node information (a file without a Node document, already filtered by
 * a relay), every valid object counts as scheduled.
 */
export function scheduleIntent(snapshot: IntentSnapshot, options: ScheduleOptions = {}): ScheduledIntent {
  const errors: ObjectError[] = [];
  const warnings: ObjectError[] = [];
  const notScheduled: string[] = [];
  const candidates: Scheduled[] = [];
  const kept = new Set<string>();
  /** Reports `problem` of `key`'s object; its last applied version, if any, takes its place. */
  const refuse = (problem: ObjectError): Scheduled | undefined => {
    const last = options.lastApplied?.get(`${problem.kind}/${problem.name}`);
    errors.push(last ? { ...problem, message: keptMessage(problem.message) } : problem);
    if (last) kept.add(scheduledKey(last));
    return last;
  };
  const sorted = [...snapshot.objects].sort((a, b) => cmp(objectRef(a), objectRef(b)));
  for (const raw of sorted) {
    if (!isScheduledKind(raw.kind)) continue;
    const parsed = PARSERS[raw.kind](raw);
    let object: Scheduled | undefined;
    if (parsed.ok) {
      object = parsed.value;
      const unknown = parsed.unknownFields ?? [];
      if (unknown.length > 0)
        warnings.push({
          kind: raw.kind,
          name: raw.metadata.name,
          field: unknown[0],
          message: `unknown field(s) ignored (a newer API version?): ${unknown.join(', ')}`,
        });
    } else {
      const first = parsed.error.issues[0];
      object = refuse({
        kind: raw.kind,
        name: raw.metadata.name,
        ...(first ? { field: first.path } : {}),
        message: parsed.error.issues.map((i) => `${i.path}: ${i.message}`).join('; '),
      });
    }
    if (object) candidates.push(object);
  }

  const vrfs: Vrf[] = [];
  const layer2s: Layer2Network[] = [];
  const peerings: BgpPeering[] = [];
  for (let object of candidates) {
    let scheduled: boolean;
    try {
      scheduled = isScheduled(object, snapshot);
    } catch (e) {
      const field = (e as { field?: unknown }).field;
      const last = kept.has(scheduledKey(object))
        ? undefined
        : refuse({
            kind: object.kind,
            name: object.metadata.name,
            field: typeof field === 'string' ? field : 'spec.nodeSelector',
            message: e instanceof Error ? e.message : String(e),
          });
      if (!last) continue;
      object = last;
      scheduled = true;
    }
    if (!scheduled) notScheduled.push(objectRef(object));
    else if (object.kind === 'VRF') vrfs.push(object);
    else if (object.kind === 'Layer2Network') layer2s.push(object);
    else peerings.push(object);
  }

  const conflictsOf = () =>
    checkIntentConflicts(vrfs, layer2s, { hbrVrf: options.hbrVrf ?? 'hbr', bgpPeerings: peerings });
  let conflicts = conflictsOf();
  // A conflicting new version of an applied object: its last applied version is checked instead.
  const replaced = conflicts.filter((c) => {
    const last = options.lastApplied?.get(`${c.kind}/${c.name}`);
    if (!last || kept.has(scheduledKey(last))) return false;
    const list: Scheduled[] = last.kind === 'VRF' ? vrfs : last.kind === 'Layer2Network' ? layer2s : peerings;
    const at = list.findIndex((o) => o.metadata.name === c.name);
    if (at < 0 || sameSpec(list[at]!, last)) return false;
    list[at] = last;
    kept.add(scheduledKey(last));
    return true;
  });
  if (replaced.length > 0) {
    const again = conflictsOf();
    const still = new Set(again.map((c) => `${c.kind}/${c.name}`));
    errors.push(
      ...replaced
        .filter((c) => !still.has(`${c.kind}/${c.name}`))
        .map((c) => ({ ...c, message: keptMessage(c.message) })),
    );
    conflicts = again;
  }
  const refused = new Set(conflicts.map((c) => `${c.kind}/${c.name}`));
  errors.push(...conflicts);
  const byKindAndName = (a: ObjectError, b: ObjectError) => cmp(a.kind, b.kind) || cmp(a.name, b.name);
  return {
    vrfs: vrfs.filter((v) => !refused.has(`VRF/${v.metadata.name}`)),
    layer2Networks: layer2s.filter((l) => !refused.has(`Layer2Network/${l.metadata.name}`)),
    bgpPeerings: peerings.filter((p) => !refused.has(`BGPPeering/${p.metadata.name}`)),
    objectErrors: errors.sort(byKindAndName),
    objectWarnings: warnings.sort(byKindAndName),
    notScheduled,
  };
}

/** Whether `object`'s nodeSelector selects this node (every node when the source knows none); throws on a bad selector. */
function isScheduled(object: Scheduled, snapshot: IntentSnapshot): boolean {
  return (
    snapshot.node === undefined ||
    matchesLabelSelector(object.spec.nodeSelector, snapshot.node.labels, 'spec.nodeSelector')
  );
}

const sameSpec = (a: Scheduled, b: Scheduled) => JSON.stringify(a.spec) === JSON.stringify(b.spec);

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
