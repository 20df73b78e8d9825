/**
 * The base class of every error fabrik's libraries and tools throw on purpose. `code` is stable
 * and what callers branch on (`isFabrikError(e, 'LINK_NOT_FOUND')`); the message is for people.
 * Subclasses add the fields of their case (`linkName`, `path`, ...) and set `name` explicitly, so
 * that it survives a minifying bundler.
 */
export class FabrikError<Code extends string = string> extends Error {
  constructor(
    readonly code: Code,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'FabrikError';
  }
}

/** True for any {@link FabrikError}; with `code`, only for one of that code. */
export function isFabrikError(e: unknown): e is FabrikError;
export function isFabrikError<Code extends string>(e: unknown, code: Code): e is FabrikError<Code>;
export function isFabrikError(e: unknown, code?: string): e is FabrikError {
  return e instanceof FabrikError && (code === undefined || e.code === code);
}

/**
 * The `isX()` guard of an error class: `export const isLinkNotFoundError = errorGuard(LinkNotFoundError)`.
 */
export const errorGuard =
  <T extends Error>(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any constructor signature
    cls: abstract new (...args: any[]) => T,
  ) =>
  (e: unknown): e is T =>
    e instanceof cls;
