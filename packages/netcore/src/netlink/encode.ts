import { opt } from './links/common.js';
import { bridgePortArgs, bridgeSetArgs, linkAddArgs } from './links/index.js';
import {
  ZERO_MAC,
  sysctlAssignments,
  type AddressSpec,
  type FdbSpec,
  type NeighbourSpec,
  type RouteSpec,
} from './objects.js';
import { InvalidDesiredStateError } from './errors.js';
import type { LinkSetChanges, Plan, PlanOp } from './plan-ops.js';

// Pure encoders: spec -> iproute2 arguments. The same arguments are run as one command (verbs)
// or written as one line of `ip -batch -` (apply).

/** `addr add|replace|del ADDRESS dev DEV [nodad] [noprefixroute]` */
export const addrArgs = (verb: 'add' | 'replace' | 'del', dev: string, a: AddressSpec): string[] => [
  'addr',
  verb,
  a.address,
  'dev',
  dev,
  ...(verb !== 'del' && a.nodad ? ['nodad'] : []),
  ...(verb !== 'del' && a.noprefixroute ? ['noprefixroute'] : []),
];

/** `route add|replace|del [TYPE] DST [via GW] [dev DEV] [src SRC] [table T] [tos 0xT] [metric M] [proto P] [scope S] [mtu N] [advmss N] [onlink]` */
export function routeArgs(verb: 'add' | 'replace' | 'del', r: RouteSpec): string[] {
  const type = r.type ?? 'unicast';
  // `-6` cannot appear inside a batch line: an IPv6 default route is written as ::/0.
  const dst = r.dst === 'default' && r.family === 'inet6' ? '::/0' : r.dst;
  return [
    'route',
    verb,
    ...(type === 'unicast' ? [] : [type]),
    dst,
    ...opt('via', r.via),
    ...opt('dev', r.dev),
    ...opt('src', r.src),
    ...opt('table', r.table),
    // iproute2 reads a tos in hex (`tos 16` is 0x16).
    ...opt('tos', r.tos === undefined ? undefined : `0x${r.tos.toString(16)}`),
    ...opt('metric', r.metric),
    ...opt('proto', r.protocol),
    ...opt('scope', r.scope),
    ...opt('mtu', r.mtu),
    ...opt('advmss', r.advmss),
    ...(r.onlink && verb !== 'del' ? ['onlink'] : []),
  ];
}

/** `neigh add|replace|del ADDRESS lladdr MAC dev DEV nud STATE` */
export const neighArgs = (verb: 'add' | 'replace' | 'del', n: NeighbourSpec): string[] =>
  verb === 'del'
    ? ['neigh', 'del', n.address, 'dev', n.dev]
    : ['neigh', verb, n.address, 'lladdr', n.lladdr, 'dev', n.dev, 'nud', n.state ?? 'permanent'];

/**
 * `fdb append|replace|del MAC dev DEV [dst IP] [vni N] self|master permanent|static` (a `bridge`
 * command). The all-zero MAC of a VXLAN device is a list of flood destinations: appended.
 */
export function fdbArgs(verb: 'add' | 'del', f: FdbSpec): string[] {
  const self = f.self ?? f.dst !== undefined;
  const action = verb === 'del' ? 'del' : f.mac === ZERO_MAC ? 'append' : 'replace';
  return [
    'fdb',
    action,
    f.mac,
    'dev',
    f.dev,
    ...opt('dst', f.dst),
    ...opt('vni', f.vni),
    self ? 'self' : 'master',
    ...(verb === 'del' ? [] : [f.state ?? (self ? 'permanent' : 'static')]),
  ];
}

// iproute2's batch reader splits on blanks and treats quotes and '#' specially; every token fabrik
// writes is validated to contain none of them, so no quoting is ever needed.
const SAFE_TOKEN = /^[^\s"'#\\]+$/;

/** One `-batch` line; throws rather than write a token that would be split or commented out. */
export function batchLine(args: readonly string[]): string {
  for (const a of args) {
    if (!SAFE_TOKEN.test(a))
      throw new InvalidDesiredStateError('', `${JSON.stringify(a)} cannot be written to an iproute2 batch`);
  }
  return args.join(' ');
}

/** Which program runs an operation, with its arguments (a batch line for `ip` and `bridge`). */
export type EncodedOp =
  | { readonly tool: 'ip' | 'bridge'; readonly args: readonly string[] }
  | { readonly tool: 'sysctl'; readonly assignments: readonly string[] };

const onOffArgs = (c: LinkSetChanges): string[] => [
  ...(c.alias === undefined ? [] : ['alias', c.alias]),
  ...(c.mtu === undefined ? [] : ['mtu', String(c.mtu)]),
  ...(c.mac === undefined ? [] : ['address', c.mac]),
  ...(c.master === undefined ? [] : c.master === null ? ['nomaster'] : ['master', c.master]),
  ...(c.up === undefined ? [] : [c.up ? 'up' : 'down']),
];

/** The iproute2 arguments of an operation. Pure. */
export function encodeOp(op: PlanOp): EncodedOp {
  switch (op.op) {
    case 'route-del':
      return { tool: 'ip', args: routeArgs('del', op.route) };
    case 'route-replace':
      return { tool: 'ip', args: routeArgs('replace', op.route) };
    case 'addr-del':
      return { tool: 'ip', args: addrArgs('del', op.dev, op.address) };
    case 'addr-add':
      return { tool: 'ip', args: addrArgs(op.replace ? 'replace' : 'add', op.dev, op.address) };
    case 'link-del':
      return { tool: 'ip', args: ['link', 'del', 'dev', op.name] };
    case 'link-add':
      return { tool: 'ip', args: linkAddArgs(op.spec) };
    case 'link-addrgenmode':
      return { tool: 'ip', args: ['link', 'set', 'dev', op.name, 'addrgenmode', op.mode] };
    case 'link-set':
      return { tool: 'ip', args: ['link', 'set', 'dev', op.name, ...onOffArgs(op.changes)] };
    case 'bridge-set':
      return { tool: 'ip', args: ['link', 'set', 'dev', op.name, ...bridgeSetArgs(op.options)] };
    case 'port-set':
      return { tool: 'ip', args: ['link', 'set', 'dev', op.name, ...bridgePortArgs(op.flags)] };
    case 'neigh-replace':
      return { tool: 'ip', args: neighArgs('replace', op.neigh) };
    case 'fdb-add':
      return { tool: 'bridge', args: fdbArgs('add', op.entry) };
    case 'sysctl-set':
      return { tool: 'sysctl', assignments: sysctlAssignments(op.dev, op.sysctls) };
  }
}

/** A plan as text, one command per line (`ip ...`, `bridge ...`, `sysctl -w ...`): what `--dry-run` prints. */
export function formatPlan(p: Plan): string[] {
  return p.ops.map((op) => {
    const e = encodeOp(op);
    return e.tool === 'sysctl' ? `sysctl -w ${e.assignments.join(' ')}` : `${e.tool} ${batchLine(e.args)}`;
  });
}
