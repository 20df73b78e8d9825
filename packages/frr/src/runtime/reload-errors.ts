import { FabrikError, errorGuard } from '@fabrik/netcore';
import type { FrrReloadResult } from './reload.js';
import { parseShowVrfVni } from './status.js';

export type FrrReloadStage = 'test' | 'reload';

/**
 * frr-reload.py failed; `frrMessage` is FRR's own output (passwords redacted). When restoring the
 * previous configuration failed as well, `restoreError` says why, and `errors` holds both
 * failures (as an AggregateError would).
 */
export class FrrReloadError extends FabrikError<'FRR_RELOAD_FAILED'> {
  override readonly name = 'FrrReloadError';
  /** When the restore failed too: the failure of the reload itself and that of the restore; else empty. */
  readonly errors: readonly Error[];
  constructor(
    readonly stage: FrrReloadStage,
    readonly frrMessage: string,
    /** The configuration that was running before was reloaded again (after a partial apply). */
    readonly restored: boolean,
    /** Why restoring the previous configuration failed, when it was tried and failed. */
    readonly restoreError?: Error,
  ) {
    const failed = `frr-reload.py --${stage} failed${restored ? ' (previous configuration restored)' : ''}: ${frrMessage}`;
    super(
      'FRR_RELOAD_FAILED',
      restoreError === undefined
        ? failed
        : `${failed}; restoring the previous configuration failed too: ${restoreError.message}`,
    );
    // No cycle (this error inside its own errors): loggers walk `errors` as AggregateError's.
    this.errors =
      restoreError === undefined ? [] : [new FrrReloadError(stage, frrMessage, false), restoreError];
  }
}

export const isFrrReloadError = errorGuard(FrrReloadError);

export interface FrrVniMismatch {
  readonly vrf: string;
  readonly vni: number;
  /** What zebra maps the VNI to instead (`default`, another VRF), or null when it has no mapping. */
  readonly actualVrf: string | null;
}

/**
 * The reload succeeded, but zebra does not map every L3 VNI to its VRF (frr-reload.py can
 * partially apply `vrf` blocks and leave the L3 VNI on the default VRF).
 */
export class FrrVniMappingError extends FabrikError<'FRR_VNI_MAPPING'> {
  override readonly name = 'FrrVniMappingError';
  constructor(
    readonly mismatches: readonly FrrVniMismatch[],
    readonly result: FrrReloadResult,
  ) {
    super(
      'FRR_VNI_MAPPING',
      `after the reload zebra maps L3 VNIs wrongly: ${mismatches.map((m) => `VNI ${m.vni} -> ${m.actualVrf ?? 'nothing'} (want ${m.vrf})`).join(', ')}`,
    );
  }
}

export const isFrrVniMappingError = errorGuard(FrrVniMappingError);

/** Compares the wanted L3 VNIs with `show vrf vni json` (as printed, decoded by {@link parseShowVrfVni}). */
export function checkVniMapping(
  expected: readonly { vrf: string; vni: number }[],
  showVrfVni: unknown,
): FrrVniMismatch[] {
  const actual = new Map(parseShowVrfVni(showVrfVni).map((r) => [r.vni, r.vrf]));
  return expected
    .filter((e) => actual.get(e.vni) !== e.vrf)
    .map((e) => ({ ...e, actualVrf: actual.get(e.vni) ?? null }));
}
