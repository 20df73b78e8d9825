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

/** The outcome of a `parse<Kind>` call: the typed, defaulted object, or the error naming the fields. */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: ApiValidationError };

/** Runs `schema` over `input`; `subject` says what was validated, for the error message. */
export function parseWith<S extends z.ZodType>(
  schema: S,
  subject: (input: unknown) => string,
  input: unknown,
): ParseResult<z.output<S>> {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
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
