import type { AgentNetnsConfig, BgpPeering, ObjectError } from '@fabrik/api';
import {
  keptMessage,
  scheduleIntent,
  scheduledKey,
  type IntentSnapshot,
  type SourceProblem,
} from '@fabrik/agent-runtime';
import type { NodeIntent } from './apply.js';
import { objectsByKey, withChanges, type NodeObjects } from './node-objects.js';
import { buildNodeIntent } from './routing-intent.js';

// sources -> desired, pure: the objects scheduled on this node (@fabrik/agent-runtime's
// scheduleIntent: each validated on its own, its nodeSelector matched, checked against the others)
// turned into the node's routing intent, which refuses what only it knows about. An object that
// fails any step is reported; it keeps its last applied version when it had one (an object edited
// into an invalid state, a newer API version this agent cannot read), or is left out. The others
// are applied. Never half an object.

/** The part of agent-netns's configuration the desired state depends on. */
export type NodeIdentity = Pick<
  AgentNetnsConfig,
  'mode' | 'asn' | 'routerId' | 'vtepIp' | 'hbrVrf' | 'underlay'
>;

export interface NodeDesired {
  readonly intent: NodeIntent;
  /** The objects `intent` is built from (kept versions included). */
  readonly objects: NodeObjects;
  /** Objects skipped or kept at their last applied version, with the field at fault. Sorted by kind and name. */
  readonly objectErrors: readonly ObjectError[];
  /** Objects applied without fields this agent does not know. Sorted by kind and name. */
  readonly objectWarnings: readonly ObjectError[];
  /** What the source could not read as objects at all (a YAML document without a name). */
  readonly sourceProblems: readonly SourceProblem[];
  /** Valid objects whose nodeSelector does not match this node (`VRF blue`). */
  readonly notScheduled: readonly string[];
}

/**
 * The node's desired state from what its source holds. Without node information (a file source
 * without a Node document, where agent-host's relay has already applied the nodeSelectors), every
 * object counts as scheduled.
 */
export function desiredNode(
  identity: NodeIdentity,
  snapshot: IntentSnapshot,
  /**
   * The contents of the BGPPeerings' `passwordFile`s, by path (read by the caller: this is pure);
   * undefined when the source is not the node's own file, which alone may name files.
   */
  passwordFiles?: ReadonlyMap<string, string>,
  /** The objects the node applied last: an object refused now keeps its version there. */
  lastApplied?: NodeObjects,
): NodeDesired {
  const kept = lastApplied ? objectsByKey(lastApplied) : undefined;
  const scheduled = scheduleIntent(snapshot, {
    hbrVrf: identity.hbrVrf,
    ...(kept ? { lastApplied: kept } : {}),
  });
  const errors: ObjectError[] = [...scheduled.objectErrors];
  const passwords = new Map<string, string>();
  const peerings: BgpPeering[] = [];
  for (const p of scheduled.bgpPeerings) {
    const name = p.metadata.name;
    const last = kept?.get(scheduledKey(p));
    // A kept version keeps its password too.
    const found = last === p ? lastApplied?.passwords.get(name) : peeringPassword(p, snapshot, passwordFiles);
    if (typeof found !== 'object') {
      if (found !== undefined) passwords.set(name, found);
      peerings.push(p);
      continue;
    }
    const keep = last?.kind === 'BGPPeering' ? last : undefined;
    errors.push({
      kind: 'BGPPeering',
      name,
      ...found,
      ...(keep ? { message: keptMessage(found.message) } : {}),
    });
    if (!keep) continue;
    const password = lastApplied?.passwords.get(name);
    if (password !== undefined) passwords.set(name, password);
    peerings.push(keep);
  }

  const wanted: NodeObjects = {
    vrfs: scheduled.vrfs,
    layer2Networks: scheduled.layer2Networks,
    bgpPeerings: peerings,
    passwords,
  };
  let built = buildNodeIntent(identity, wanted);
  let intentErrors = built.objectErrors;
  // Objects the routing intent refuses that were applied before: their last applied versions are
  // built instead (once: a version that was applied and is refused now goes).
  const wantedByKey = objectsByKey(wanted);
  const retry = intentErrors
    .map((e) => `${e.kind}/${e.name}`)
    .filter((k) => kept?.has(k) && kept.get(k) !== wantedByKey.get(k));
  if (lastApplied && retry.length > 0) {
    const again = buildNodeIntent(identity, withChanges(wanted, lastApplied, retry));
    const keptNow = objectsByKey(again.objects);
    const reported = new Set(intentErrors.map((e) => `${e.kind}/${e.name}`));
    intentErrors = [
      ...intentErrors.map((e) =>
        keptNow.has(`${e.kind}/${e.name}`) ? { ...e, message: keptMessage(e.message) } : e,
      ),
      ...again.objectErrors.filter((e) => !reported.has(`${e.kind}/${e.name}`)),
    ];
    built = again;
  }
  return {
    intent: built.intent,
    objects: built.objects,
    objectErrors: sortByObject([...errors, ...intentErrors]),
    objectWarnings: scheduled.objectWarnings,
    sourceProblems: snapshot.problems,
    notScheduled: scheduled.notScheduled,
  };
}

/** Object errors by kind and name. */
export const sortByObject = (errors: readonly ObjectError[]): ObjectError[] =>
  [...errors].sort((a, b) => cmp(a.kind, b.kind) || cmp(a.name, b.name));

/**
 * The password of a BGPPeering: from its Secret (a source that reads Secrets), from its file (read
 * by the caller), none; or the problem, naming the field.
 */
function peeringPassword(
  { spec }: BgpPeering,
  snapshot: IntentSnapshot,
  passwordFiles: ReadonlyMap<string, string> | undefined,
): string | undefined | { field: string; message: string } {
  if (spec.passwordSecretRef !== undefined) {
    const { name, key } = spec.passwordSecretRef;
    if (snapshot.secrets === undefined)
      return {
        field: 'spec.passwordSecretRef',
        message:
          'this source reads no Secrets (a file source: use passwordFile; relayed by agent-host: its Secret could not be read there)',
      };
    const value = snapshot.secrets.get(name)?.[key];
    return value === undefined
      ? {
          field: 'spec.passwordSecretRef',
          message: `no key ${key} in Secret ${name} (${snapshot.secrets.where})`,
        }
      : value;
  }
  if (spec.passwordFile !== undefined) {
    if (passwordFiles === undefined)
      return {
        field: 'spec.passwordFile',
        message: "read only from the node's own intent file, not from the cluster",
      };
    const value = passwordFiles.get(spec.passwordFile);
    return value === undefined
      ? { field: 'spec.passwordFile', message: `${spec.passwordFile} could not be read` }
      : value.trimEnd();
  }
  return undefined;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
