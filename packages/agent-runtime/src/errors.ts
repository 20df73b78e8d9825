// Typed errors of the runtime: a `code` to branch on and an `isX()` guard each (FabrikErrors).
import { FabrikError, errorGuard } from '@fabrik/api';

/** One problem of an input, with the path of the field it concerns (`underlay.neighbors[0].address`). */
export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

/** A configuration file is missing, unreadable, not YAML, or does not match the agent's schema. */
export class ConfigError extends FabrikError<'CONFIG_INVALID'> {
  override readonly name = 'ConfigError';
  constructor(
    readonly file: string,
    readonly issues: readonly FieldIssue[],
    options?: { cause?: unknown },
  ) {
    super(
      'CONFIG_INVALID',
      `invalid configuration ${file}:\n${issues.map((i) => `  ${i.path}: ${i.message}`).join('\n')}`,
      options,
    );
  }
}

export const isConfigError = errorGuard(ConfigError);

/**
 * The agent's input (its intent) is invalid as a whole: `plan` and `render` exit 2 with it. Objects
 * that are invalid one by one are reported in status instead, not thrown.
 */
export class InvalidInputError extends FabrikError<'INPUT_INVALID'> {
  override readonly name = 'InvalidInputError';
  constructor(
    message: string,
    readonly issues: readonly FieldIssue[] = [],
    options?: { cause?: unknown },
  ) {
    super(
      'INPUT_INVALID',
      issues.length ? `${message}:\n${issues.map((i) => `  ${i.path}: ${i.message}`).join('\n')}` : message,
      options,
    );
  }
}

export const isInvalidInputError = errorGuard(InvalidInputError);

/** `vrfs[1].import[0].le`: a zod issue path as people write it. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out || '(root)';
}
