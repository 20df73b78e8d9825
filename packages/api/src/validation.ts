import type { z } from 'zod';
import { pathText } from './routing-intent/path.js';
import { FabrikError, errorGuard } from './errors.js';

/** One problem of an invalid object: where (`spec.vlan`) and what. */
export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

/**
 * `path` is `field` or lies inside it (`spec.a` in `spec.a`, `spec.a.b`, `spec.a[0]`): an issue at
 * a map key or list item still concerns the field that holds it.
 */
export function isPathWithin(path: string, field: string): boolean {
  return path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`);
}

/**
 * An object or config file failed validation. `issues` names the path of every problem; the
 * message lists them as `spec.vlan: Too big: expected number to be <=4094`. Input values are never
 * echoed (a config file may hold a BGP password or a token).
 */
export class ApiValidationError extends FabrikError<'API_VALIDATION_FAILED'> {
  override readonly name = 'ApiValidationError';
  constructor(
    /** What was validated: a kind (`Layer2Network red-web`) or a file (`AgentNetnsConfig`). */
    readonly subject: string,
    readonly issues: readonly FieldIssue[],
  ) {
    super(
      'API_VALIDATION_FAILED',
      `invalid ${subject}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
    );
  }
}

export const isApiValidationError = errorGuard(ApiValidationError);

/**
 * The outcome of a `parse<Kind>` call: the typed, defaulted object, or the error naming the fields.
 * With unknown fields tolerated, `unknownFields` lists those that were dropped (`spec.newField`).
 */
export type ParseResult<T> =
  { ok: true; value: T; unknownFields?: readonly string[] } | { ok: false; error: ApiValidationError };

export interface ParseOptions {
  /**
   * `refuse` (default): an unknown field makes the object invalid, as the API server's structural
   * schema does. `ignore`: unknown fields are dropped and listed in `unknownFields`, and the rest
   * is validated as usual: what an agent does with an object a newer CRD version wrote.
   */
  readonly unknownFields?: 'refuse' | 'ignore';
}

/** Nesting levels of unknown fields dropped one after the other before giving up. */
const MAX_UNKNOWN_FIELD_PASSES = 8;

/** Runs `schema` over `input`; `subject` says what was validated, for the error message. */
export function parseWith<S extends z.ZodType>(
  schema: S,
  subject: (input: unknown) => string,
  input: unknown,
  options: ParseOptions = {},
): ParseResult<z.output<S>> {
  let result = schema.safeParse(input);
  const unknownFields: string[] = [];
  if (options.unknownFields === 'ignore') {
    let current = input;
    for (let pass = 0; !result.success && pass < MAX_UNKNOWN_FIELD_PASSES; pass++) {
      const unknown = result.error.issues.flatMap((i) =>
        i.code === 'unrecognized_keys' ? i.keys.map((k) => [...i.path, k]) : [],
      );
      if (unknown.length === 0) break;
      current = withoutPaths(current, unknown);
      unknownFields.push(...unknown.map(pathText));
      result = schema.safeParse(current);
    }
  }
  if (result.success)
    return { ok: true, value: result.data, ...(unknownFields.length > 0 ? { unknownFields } : {}) };
  // The zod error is not kept: some of its issues carry the rejected input value.
  // An unknown key is reported at the key itself (`spec.vnii: unknown field`), as kubectl does.
  const issues = result.error.issues.flatMap((i) =>
    i.code === 'unrecognized_keys'
      ? i.keys.map((k) => ({ path: pathText([...i.path, k]), message: 'unknown field' }))
      : i.code === 'invalid_key'
        ? [{ path: pathText(i.path), message: `invalid key: ${i.issues[0]?.message ?? i.message}` }]
        : [{ path: pathText(i.path), message: i.message }],
  );
  return { ok: false, error: new ApiValidationError(subject(input), issues) };
}

/** A copy of `input` without the fields at `paths` (the input itself is never changed). */
function withoutPaths(input: unknown, paths: readonly (readonly PropertyKey[])[]): unknown {
  const copy: unknown = structuredClone(input);
  for (const path of paths) {
    let at: unknown = copy;
    for (const key of path.slice(0, -1)) at = isRecord(at) ? at[key as string] : undefined;
    if (isRecord(at)) delete at[path[path.length - 1] as string];
  }
  return copy;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
