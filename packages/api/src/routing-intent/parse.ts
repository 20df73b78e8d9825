import { z } from 'zod';
import { pathText } from './path.js';
import { FrrIntentSchema, type FrrIntent, type FrrIntentInput } from './schema.js';

/** One problem of an invalid intent. */
export interface FrrIntentIssue {
  /** Where: `vrfs[1].import[0].le`. */
  readonly path: string;
  readonly message: string;
}

/** The intent is invalid; `issues` names the path of every problem. Never contains a password. */
export class FrrIntentError extends Error {
  readonly code = 'FRR_INTENT_INVALID' as const;
  constructor(
    readonly issues: readonly FrrIntentIssue[],
    options?: { cause?: unknown },
  ) {
    super(`invalid FRR intent:\n${issues.map((i) => `  ${i.path}: ${i.message}`).join('\n')}`, options);
    this.name = 'FrrIntentError';
  }
}

export const isFrrIntentError = (e: unknown): e is FrrIntentError => e instanceof FrrIntentError;

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

/**
 * The JSON Schema of the intent (draft 2020-12), as `fabrik-frr schema` prints it. It agrees with
 * `parseFrrIntent` on every single field; the rules between fields are listed in its description.
 */
export function frrIntentJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(FrrIntentSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
