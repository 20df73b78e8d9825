import { z } from 'zod';
import { FabrikError, errorGuard } from '../errors.js';
import { pathText } from './path.js';
import {
  AggregatePrefix,
  BfdProfile,
  BgpPassword,
  BgpPeer,
  BgpTimers,
  Community,
  FabricLoopGuard,
  Filter,
  FilterItem,
  FrrIntentSchema,
  FrrVrfName,
  IpAddress,
  Ipv4Address,
  Layer2Intent,
  LocalAs,
  NeighborBfd,
  NeighborInterface,
  Network,
  PrefixMatch,
  PrefixRule,
  RemoteAs,
  RouteTarget,
  RouteTargets,
  StaticRoute,
  UnderlayNeighbor,
  VrfIntent,
  type FrrIntent,
  type FrrIntentInput,
} from './schema.js';

/** One problem of an invalid intent. */
export interface FrrIntentIssue {
  /** Where: `vrfs[1].import[0].le`. */
  readonly path: string;
  readonly message: string;
}

/** The intent is invalid; `issues` names the path of every problem. Never contains a password. */
export class FrrIntentError extends FabrikError<'FRR_INTENT_INVALID'> {
  override readonly name = 'FrrIntentError';
  constructor(
    readonly issues: readonly FrrIntentIssue[],
    options?: { cause?: unknown },
  ) {
    super(
      'FRR_INTENT_INVALID',
      `invalid FRR intent:\n${issues.map((i) => `  ${i.path}: ${i.message}`).join('\n')}`,
      options,
    );
  }
}

export const isFrrIntentError = errorGuard(FrrIntentError);

/**
 * Validates `input` (parsed YAML/JSON) and applies defaults. Throws {@link FrrIntentError} listing
 * every problem with its path. Error messages never echo input values of secret fields.
 */
export function parseFrrIntent(input: unknown): FrrIntent {
  const result = FrrIntentSchema.safeParse(input);
  if (result.success) return result.data;
  // The zod error is not kept as `cause`: some of its issues carry the rejected input value,
  // which may be a password.
  const issues = result.error.issues.map((i) => ({ path: pathText(i.path), message: i.message }));
  throw new FrrIntentError(issues);
}

export const REDACTED = '<redacted>';

/** A copy of the intent that is safe to log: every password replaced by `<redacted>`. */
export function redactIntent<T extends FrrIntent | FrrIntentInput>(intent: T): T {
  const hide = <N extends { password?: string }>(n: N): N =>
    n.password === undefined ? n : { ...n, password: REDACTED };
  const neighbors = intent.underlay?.neighbors;
  return {
    ...intent,
    ...(intent.underlay && neighbors
      ? { underlay: { ...intent.underlay, neighbors: neighbors.map(hide) } }
      : {}),
    ...(intent.vrfs
      ? { vrfs: intent.vrfs.map((v) => (v.bgpPeers ? { ...v, bgpPeers: v.bgpPeers.map(hide) } : v)) }
      : {}),
  };
}

/** Parts of the intent that the JSON Schema names in `$defs` (instead of repeating them inline). */
const NAMED_PARTS: Record<string, z.ZodType> = {
  Ipv4Address,
  IpAddress,
  Network,
  AggregatePrefix,
  FrrVrfName,
  NeighborInterface,
  BgpPassword,
  RouteTarget,
  RouteTargets,
  Community,
  RemoteAs,
  BgpTimers,
  NeighborBfd,
  BfdProfile,
  LocalAs,
  PrefixRule,
  PrefixMatch,
  FilterItem,
  Filter,
  StaticRoute,
  UnderlayNeighbor,
  BgpPeer,
  VrfIntent,
  Layer2Intent,
  FabricLoopGuard,
};

type Json = { [key: string]: unknown };
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const toJson = (schema: z.ZodType): Json => {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  return json;
};
/** What identifies a part wherever it is used: its JSON without the annotations a use site adds. */
const shapeKey = (node: Json): string => {
  const { description: _d, default: _f, ...shape } = node;
  return JSON.stringify(shape, (_, v: unknown) =>
    isObject(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
};

/**
 * The JSON Schema of the intent (draft 2020-12), as `fabrik-frr schema` prints it. It agrees with
 * `parseFrrIntent` on every single field; the rules between fields are listed in its description.
 * The intent's parts are named in `$defs` (Network, VrfIntent, Filter, ...). The names are given
 * here, not in zod's global registry, so that other schemas built from these parts (the CRDs)
 * stay inline.
 */
export function frrIntentJsonSchema(): Record<string, unknown> {
  const parts = new Map(
    Object.entries(NAMED_PARTS).map(([name, schema]) => [shapeKey(toJson(schema)), name]),
  );
  const defs: Record<string, unknown> = {};
  const name = (node: unknown, isPart?: string): unknown => {
    if (Array.isArray(node)) return node.map((n) => name(n));
    if (!isObject(node)) return node;
    const part = parts.get(shapeKey(node));
    if (part !== undefined && part !== isPart) {
      if (!(part in defs)) {
        defs[part] = {};
        defs[part] = name(toJson(NAMED_PARTS[part] as z.ZodType), part);
      }
      const { description, default: fallback } = node;
      return {
        $ref: `#/$defs/${part}`,
        ...(description === undefined ? {} : { description }),
        ...(fallback === undefined ? {} : { default: fallback }),
      };
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, name(v)]));
  };
  const schema = name(z.toJSONSchema(FrrIntentSchema, { io: 'input', unrepresentable: 'any' })) as Json;
  return {
    ...schema,
    $defs: Object.fromEntries(Object.entries(defs).sort(([a], [b]) => a.localeCompare(b))),
  };
}
