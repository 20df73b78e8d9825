/**
 * The base class of every error fabrik's libraries and tools throw on purpose. `code` is stable
 * and what callers branch on (`isFabrikError(e, 'LINK_NOT_FOUND')`); the message is for people.
 * It lives here, in the package every other one depends on (@fabrik/netcore re-exports it). A
 * `code` is a string, except for errors whose code is a number by another specification
 * (cni-skel's CniError carries the CNI error code).
 * Subclasses add the fields of their case (`linkName`, `path`, ...) and set `name` explicitly, so
 * that it survives a minifying bundler.
 */
export class FabrikError<Code extends string | number = string> extends Error {
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
export function isFabrikError<Code extends string | number>(e: unknown, code: Code): e is FabrikError<Code>;
export function isFabrikError(e: unknown, code?: string | number): e is FabrikError<string | number> {
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
