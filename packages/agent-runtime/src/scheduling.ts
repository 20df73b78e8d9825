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

export interface ScheduledIntent {
  /** Valid, scheduled on this node and free of conflicts, sorted by name. */
  readonly vrfs: readonly Vrf[];
  readonly layer2Networks: readonly Layer2Network[];
  readonly bgpPeerings: readonly BgpPeering[];
  /** Objects skipped as invalid or conflicting (sorted by kind and name). */
  readonly objectErrors: readonly ObjectError[];
  /** Valid objects whose nodeSelector does not match this node (`VRF blue`). */
  readonly notScheduled: readonly string[];
}

export interface ScheduleOptions {
  /** The node's own VRF, which Layer2Networks may name without a VRF object. Default `hbr`. */
  readonly hbrVrf?: string;
}

type Scheduled = Vrf | Layer2Network | BgpPeering;

/** The kinds scheduled here, each with its parser; other kinds of the source are not looked at. */
const PARSERS: Readonly<Record<Scheduled['kind'], (o: unknown) => ParseResult<Scheduled>>> = {
  VRF: parseVrf,
  Layer2Network: parseLayer2Network,
  BGPPeering: parseBgpPeering,
};
const isScheduledKind = (kind: string): kind is Scheduled['kind'] => Object.hasOwn(PARSERS, kind);

/**
 * Sorts the source's VRF, Layer2Network and BGPPeering objects into those this node applies and
 * those it skips. Without node information (a file without a Node document, already filtered by
 * a relay), every valid object counts as scheduled.
 */
export function scheduleIntent(snapshot: IntentSnapshot, options: ScheduleOptions = {}): ScheduledIntent {
  const errors: ObjectError[] = [];
  const notScheduled: string[] = [];
  const vrfs: Vrf[] = [];
  const layer2s: Layer2Network[] = [];
  const peerings: BgpPeering[] = [];
  const sorted = [...snapshot.objects].sort((a, b) => cmp(objectRef(a), objectRef(b)));
  for (const raw of sorted) {
    if (!isScheduledKind(raw.kind)) continue;
    const parsed = PARSERS[raw.kind](raw);
    if (!parsed.ok) {
      const first = parsed.error.issues[0];
      errors.push({
        kind: raw.kind,
        name: raw.metadata.name,
        ...(first ? { field: first.path } : {}),
        message: parsed.error.issues.map((i) => `${i.path}: ${i.message}`).join('; '),
      });
      continue;
    }
    const object = parsed.value;
    let scheduled: boolean;
    try {
      scheduled =
        snapshot.node === undefined ||
        matchesLabelSelector(object.spec.nodeSelector, snapshot.node.labels, 'spec.nodeSelector');
    } catch (e) {
      const field = (e as { field?: unknown }).field;
      errors.push({
        kind: object.kind,
        name: object.metadata.name,
        field: typeof field === 'string' ? field : 'spec.nodeSelector',
        message: e instanceof Error ? e.message : String(e),
      });
      continue;
    }
    if (!scheduled) notScheduled.push(objectRef(object));
    else if (object.kind === 'VRF') vrfs.push(object);
    else if (object.kind === 'Layer2Network') layer2s.push(object);
    else peerings.push(object);
  }
  const conflicts = checkIntentConflicts(vrfs, layer2s, {
    hbrVrf: options.hbrVrf ?? 'hbr',
    bgpPeerings: peerings,
  });
  const refused = new Set(conflicts.map((c) => `${c.kind}/${c.name}`));
  errors.push(...conflicts);
  return {
    vrfs: vrfs.filter((v) => !refused.has(`VRF/${v.metadata.name}`)),
    layer2Networks: layer2s.filter((l) => !refused.has(`Layer2Network/${l.metadata.name}`)),
    bgpPeerings: peerings.filter((p) => !refused.has(`BGPPeering/${p.metadata.name}`)),
    objectErrors: errors.sort((a, b) => cmp(a.kind, b.kind) || cmp(a.name, b.name)),
    notScheduled,
  };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
