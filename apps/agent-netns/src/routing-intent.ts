import {
  FrrIntentSchema,
  isFrrIntentError,
  pathText,
  vrfAddressFamilies,
  type BgpPeering,
  type FrrIntent,
  type FrrIntentInput,
  type Layer2Network,
  type ObjectError,
  type Vrf,
  type VrfPrefixRule,
} from '@fabrik/api';
import { toFrrModel } from '@fabrik/frr';
import type { NodeIntent } from './apply.js';
import type { NodeIdentity } from './desired.js';
import type { Layer2Kernel } from './hbr-state.js';
import type { NodeObjects } from './node-objects.js';

// objects -> the node's intent, pure: the routing intent (FRR and kernel) and the L2 networks'
// kernel details of a set of valid, scheduled objects. The routing intent has rules of its own
// (IPv4-only prefixes, the template set's limits): an object it refuses is left out, with the
// field at fault, and the others are built again, until what is left is accepted.

export interface BuiltIntent {
  readonly intent: NodeIntent;
  /** The objects the intent holds: `objects` without those refused. */
  readonly objects: NodeObjects;
  /** The objects refused, with the field at fault. */
  readonly objectErrors: readonly ObjectError[];
}

/** The node's intent of `objects`, leaving out (and reporting) what the routing intent refuses. */
export function buildNodeIntent(identity: NodeIdentity, objects: NodeObjects): BuiltIntent {
  const errors: ObjectError[] = [];
  const { passwords } = objects;
  let vrfs = [...objects.vrfs];
  let layer2s = [...objects.layer2Networks];
  let peeringsLeft = [...objects.bgpPeerings];
  let frr: FrrIntent;
  for (;;) {
    const input = routingIntent(identity, vrfs, layer2s, peeringsLeft, passwords);
    const blame = intentProblems(input);
    if (blame.length === 0) {
      frr = FrrIntentSchema.parse(input);
      break;
    }
    const bad = new Set<string>();
    for (const problem of blame) {
      const { index, list, path, message } = problem;
      const object = list === 'vrfs' ? vrfs[index] : layer2s[index];
      if (!object) throw new Error(`the routing intent refuses ${path}: ${message}`);
      // A session the intent refuses is the BGPPeering's fault, not its VRF's.
      const peer = /^vrfs\[\d+\]\.bgpPeers\[(\d+)\]\.?(.*)$/.exec(path);
      const peering = peer && peeringsIn(object.metadata.name, peeringsLeft)[Number(peer[1])];
      if (peering) {
        errors.push({
          kind: 'BGPPeering',
          name: peering.metadata.name,
          field: peeringField(peer[2] ?? ''),
          message,
        });
        bad.add(`BGPPeering/${peering.metadata.name}`);
        continue;
      }
      errors.push({ kind: object.kind, name: object.metadata.name, field: specField(object, path), message });
      bad.add(`${list}/${index}`);
    }
    peeringsLeft = peeringsLeft.filter((p) => !bad.has(`BGPPeering/${p.metadata.name}`));
    vrfs = vrfs.filter((_, i) => !bad.has(`vrfs/${i}`));
    layer2s = layer2s.filter((_, i) => !bad.has(`layer2s/${i}`));
  }

  const layer2 = new Map<number, Layer2Kernel>(
    layer2s.map((l) => [
      l.spec.vni,
      {
        mtu: l.spec.mtu,
        neighSuppression: l.spec.neighSuppression,
        ...(l.spec.anycastGateways ? { anycastGateways: l.spec.anycastGateways } : {}),
        ...(l.spec.anycastMac ? { anycastMac: l.spec.anycastMac } : {}),
      },
    ]),
  );
  // A BGPPeering of a VRF left out has no session: it is not in the intent either.
  const vrfNames = new Set(vrfs.map((v) => v.metadata.name));
  const bgpPeerings = peeringsLeft.filter((p) => vrfNames.has(p.spec.vrf));
  return {
    intent: { frr, layer2 },
    objects: {
      vrfs,
      layer2Networks: layer2s,
      bgpPeerings,
      passwords: new Map(
        [...passwords].filter(([name]) => bgpPeerings.some((p) => p.metadata.name === name)),
      ),
    },
    objectErrors: errors,
  };
}

/** The routing intent (input form) of the node's identity and its valid, scheduled objects. */
function routingIntent(
  identity: NodeIdentity,
  vrfs: readonly Vrf[],
  layer2s: readonly Layer2Network[],
  peerings: readonly BgpPeering[],
  passwords: ReadonlyMap<string, string>,
): FrrIntentInput {
  return {
    mode: identity.mode,
    asn: identity.asn,
    routerId: identity.routerId,
    vtepIp: identity.vtepIp,
    hbrVrf: identity.hbrVrf,
    underlay: identity.underlay,
    vrfs: vrfs.map(({ metadata, spec }) => ({
      name: metadata.name,
      vni: spec.vni,
      addressFamilies: vrfAddressFamilies({ metadata, spec }, layer2s),
      ...(spec.routeTarget ? { routeTarget: spec.routeTarget } : {}),
      ...(spec.routeTargets ? { routeTargets: spec.routeTargets } : {}),
      // A source with a filter of its own (importVrfFilters) is leaked through that filter.
      importVrfs: (spec.importVrfs ?? []).map((name) => {
        const own = spec.importVrfFilters?.find((f) => f.vrf === name);
        return own ? { vrf: name, filter: own.filter } : name;
      }),
      import: prefixList(spec.import).rules,
      export: prefixList(spec.export).rules,
      aggregates: spec.aggregates ?? [],
      redistribute: {
        connected: spec.redistribute?.connected ?? false,
        static: spec.redistribute?.static ?? false,
        kernel: spec.redistribute?.kernel ?? false,
      },
      staticRoutes: (spec.staticRoutes ?? []).map((r) => ({ prefix: r.prefix, nexthop: r.nextHop })),
      bgpPeers: peeringsIn(metadata.name, peerings).map((p) => bgpPeer(p, passwords.get(p.metadata.name))),
    })),
    layer2s: layer2s.map(({ spec }) => ({
      vni: spec.vni,
      vlan: spec.vlan,
      ...(spec.vrf ? { vrf: spec.vrf } : {}),
      ...(spec.routeTarget ? { routeTarget: spec.routeTarget } : {}),
    })),
  };
}

/** The BGPPeerings of a VRF, in the order they are given to the routing intent (by name). */
function peeringsIn(vrf: string, peerings: readonly BgpPeering[]): BgpPeering[] {
  return peerings.filter((p) => p.spec.vrf === vrf).sort((a, b) => cmp(a.metadata.name, b.metadata.name));
}

/** A peer of a VRF of the routing intent (input form). */
type IntentPeer = NonNullable<NonNullable<FrrIntentInput['vrfs']>[number]['bgpPeers']>[number];

/** A BGPPeering as a peer of the routing intent's VRF. */
function bgpPeer({ spec }: BgpPeering, password: string | undefined): IntentPeer {
  return {
    ...(spec.address !== undefined ? { address: spec.address } : {}),
    ...(spec.listenRange !== undefined ? { listenRange: spec.listenRange } : {}),
    remoteAs: spec.remoteAs,
    ...(password !== undefined ? { password } : {}),
    ...(spec.bfd !== undefined ? { bfd: spec.bfd } : {}),
    ...(spec.holdTime !== undefined && spec.keepaliveTime !== undefined
      ? { timers: { keepalive: spec.keepaliveTime, hold: spec.holdTime } }
      : {}),
    ...(spec.maxPrefixes !== undefined ? { maxPrefixes: spec.maxPrefixes } : {}),
    ...(spec.addressFamilies !== undefined ? { addressFamilies: spec.addressFamilies } : {}),
    ...(spec.import !== undefined ? { import: spec.import } : {}),
    ...(spec.export !== undefined ? { export: spec.export } : {}),
  };
}

/** The BGPPeering's field for a path inside its intent peer (`timers.hold` -> `spec.holdTime`). */
function peeringField(rest: string): string {
  if (rest === '') return 'spec';
  if (rest.startsWith('timers')) return 'spec.holdTime';
  if (rest.startsWith('password')) return 'spec';
  return `spec.${rest}`;
}

/**
 * A VRF's prefix rules in the order FRR tries them: by `seq`, which defaults to the position
 * (5, 10, ...). `from[i]` is the index in the object of the i-th rule, to name fields.
 */
function prefixList(rules: readonly VrfPrefixRule[] | undefined): {
  rules: { cidr: string; ge?: number; le?: number; action: 'permit' | 'deny' }[];
  from: number[];
} {
  const ordered = (rules ?? [])
    .map((r, i) => ({ r, i, seq: r.seq ?? (i + 1) * 5 }))
    .sort((a, b) => a.seq - b.seq);
  return {
    rules: ordered.map(({ r }) => ({
      cidr: r.cidr,
      ...(r.ge === undefined ? {} : { ge: r.ge }),
      ...(r.le === undefined ? {} : { le: r.le }),
      action: r.action,
    })),
    from: ordered.map(({ i }) => i),
  };
}

interface Blame {
  readonly list: 'vrfs' | 'layer2s';
  readonly index: number;
  /** The intent path: `vrfs[0].import[1].cidr`. */
  readonly path: string;
  readonly message: string;
}

/** What the routing intent's schema and the template set refuse, blamed on the object at fault. */
function intentProblems(input: FrrIntentInput): Blame[] {
  const parsed = FrrIntentSchema.safeParse(input);
  const issues = parsed.success
    ? templateIssues(parsed.data)
    : parsed.error.issues.map((i) => ({ path: i.path, message: i.message }));
  const out: Blame[] = [];
  const seen = new Set<string>();
  for (const issue of issues) {
    const [list, index] = issue.path;
    if ((list !== 'vrfs' && list !== 'layer2s') || typeof index !== 'number') {
      // The node's own settings were validated with the config: nothing an object can fix.
      throw new Error(`the routing intent refuses ${pathText(issue.path)}: ${issue.message}`);
    }
    if (seen.has(`${list}/${index}`)) continue;
    seen.add(`${list}/${index}`);
    out.push({ list, index, path: pathText(issue.path), message: issue.message });
  }
  return out;
}

function templateIssues(intent: FrrIntent): { path: (string | number)[]; message: string }[] {
  try {
    toFrrModel(intent);
    return [];
  } catch (e) {
    if (!isFrrIntentError(e)) throw e;
    return e.issues.map((i) => ({ path: parsePath(i.path), message: i.message }));
  }
}

/** `vrfs[1].importVrfs[0]` -> ['vrfs', 1, 'importVrfs', 0]. */
function parsePath(text: string): (string | number)[] {
  return [...text.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]!));
}

/** The object's field for an intent path: `vrfs[0].import[1].cidr` -> `spec.import[1].cidr`. */
function specField(object: Vrf | Layer2Network, path: string): string {
  let rest = path.replace(/^(vrfs|layer2s)\[\d+\]\.?/, '');
  if (object.kind === 'VRF') {
    if (rest === 'name') return 'metadata.name';
    // Prefix rules were put in seq order: name the rule as the object lists it.
    rest = rest.replace(/^(import|export)\[(\d+)\]/, (_m, list: 'import' | 'export', k: string) => {
      const from = prefixList(object.spec[list]).from[Number(k)];
      return `${list}[${from ?? k}]`;
    });
    rest = rest.replace(/^staticRoutes\[(\d+)\]\.nexthop/, 'staticRoutes[$1].nextHop');
  }
  return rest ? `spec.${rest}` : 'spec';
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
