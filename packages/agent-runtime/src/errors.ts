// Typed errors of the runtime: a `code` to branch on and an `isX()` guard each.

/** One problem of an input, with the path of the field it concerns (`underlay.neighbors[0].address`). */
export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

/** A configuration file is missing, unreadable, not YAML, or does not match the agent's schema. */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID' as const;
  constructor(
    readonly file: string,
    readonly issues: readonly FieldIssue[],
    options?: { cause?: unknown },
  ) {
    super(
      `invalid configuration ${file}:\n${issues.map((i) => `  ${i.path}: ${i.message}`).join('\n')}`,
      options,
    );
    this.name = 'ConfigError';
  }
}

export const isConfigError = (e: unknown): e is ConfigError => e instanceof ConfigError;

/**
 * The agent's input (its intent) is invalid as a whole: `plan` and `render` exit 2 with it. Objects
 * that are invalid one by one are reported in status instead, not thrown.
 */
export class InvalidInputError extends Error {
  readonly code = 'INPUT_INVALID' as const;
  constructor(
    message: string,
    readonly issues: readonly FieldIssue[] = [],
    options?: { cause?: unknown },
  ) {
    super(
      issues.length ? `${message}:\n${issues.map((i) => `  ${i.path}: ${i.message}`).join('\n')}` : message,
      options,
    );
    this.name = 'InvalidInputError';
  }
}

export const isInvalidInputError = (e: unknown): e is InvalidInputError => e instanceof InvalidInputError;

/** `vrfs[1].import[0].le`: a zod issue path as people write it. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out || '(root)';
}
