import { FabrikError, errorGuard } from '@fabrik/api/errors';

// CNI error codes (SPEC.md "Error"). 1-99 are reserved by the spec; fabrik uses only these.
export const CniErrorCode = {
  incompatibleVersion: 1,
  unsupportedField: 2,
  unknownContainer: 3,
  invalidEnvironment: 4,
  ioFailure: 5,
  decodeFailure: 6,
  invalidNetworkConfig: 7,
  tryAgainLater: 11,
  pluginNotAvailable: 50,
  internal: 999,
} as const;

/**
 * An error the plugin reports to the runtime as `{cniVersion, code, msg, details}`: a FabrikError
 * whose `code` is the CNI error code (a number, as the spec has it).
 */
export class CniError extends FabrikError<number> {
  constructor(
    code: number,
    msg: string,
    readonly details?: string,
    options?: { cause?: unknown },
  ) {
    super(code, msg, options);
    this.name = 'CniError';
  }
}

export const isCniError = errorGuard(CniError);

/** The JSON the spec wants on stdout when a command fails. */
export function toErrorJson(
  cniVersion: string,
  e: unknown,
): { cniVersion: string; code: number; msg: string; details?: string } {
  if (isCniError(e)) {
    return { cniVersion, code: e.code, msg: e.message, ...(e.details ? { details: e.details } : {}) };
  }
  const msg = e instanceof Error ? e.message : String(e);
  return { cniVersion, code: CniErrorCode.internal, msg };
}
