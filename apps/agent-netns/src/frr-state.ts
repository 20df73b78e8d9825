import {
  droppedL3Vnis,
  readFrrStatus,
  releaseL3Vnis,
  readRunningConfigAndVrfVnis,
  readVrfVnis,
  reloadFrr,
  showRunningConfig,
  type FrrStatus,
  type FrrTarget,
} from '@fabrik/frr';
import { FabrikError, errorGuard } from '@fabrik/netcore';

/** What one FRR step did. */
export interface FrrApplyResult {
  /** False when FRR already ran this configuration (nothing was reloaded). */
  readonly changed: boolean;
  /** Lines frr-reload.py added and removed. */
  readonly added: number;
  readonly removed: number;
  /** Time of the reload itself (0 when skipped). */
  readonly reloadMs: number;
}

/** Zebra did not map every L3 VNI to its VRF within the wait. */
export class VniMappingTimeoutError extends FabrikError<'VNI_MAPPING_TIMEOUT'> {
  override readonly name = 'VniMappingTimeoutError';
  constructor(
    readonly missing: readonly { vrf: string; vni: number }[],
    readonly timeoutMs: number,
  ) {
    super(
      'VNI_MAPPING_TIMEOUT',
      `zebra did not map ${missing.map((m) => `VRF ${m.vrf} to VNI ${m.vni}`).join(', ')} within ${timeoutMs} ms`,
    );
  }
}
export const isVniMappingTimeoutError = errorGuard(VniMappingTimeoutError);

/**
 * FRR as agent-netns drives it: the configuration is applied with frr-reload.py only when it
 * differs from what FRR runs. The running configuration seen right after the last apply is kept:
 * while the rendered configuration and FRR's running one both stay as they were, a reconcile costs
 * one `show running-config` and no frr-reload.py (seconds in the lab); any change to either, by the
 * intent or by hand (drift), reloads.
 */
export interface FrrState {
  /** How FRR's running configuration stands to `config`, and zebra's VNI mappings (one vtysh). */
  inspect(config: string): Promise<FrrInspection>;
  /** The configuration the last successful `apply` of this process gave FRR; undefined after any other change. */
  lastAppliedConfig(): string | undefined;
  /** Takes L3 VNIs off their VRFs, while the VRFs' kernel devices still exist (see @fabrik/frr's releaseL3Vnis). */
  releaseL3Vnis(vnis: readonly L3Vni[]): Promise<void>;
  /**
   * Reloads FRR with `config` unless it runs it as this state applied it. `inspected`: what an
   * `inspect(config)` of this reconcile found; when FRR was not current then, it is not read again.
   */
  apply(config: string, inspected?: FrrInspection): Promise<FrrApplyResult>;
  /** The VRF-to-VNI mappings zebra holds now, as {@link vniMappingKey}s (`show vrf vni`). */
  mappedVnis(): Promise<ReadonlySet<string>>;
  /** Waits until zebra maps every `{ vrf, vni }` (polling `show vrf vni`), or `signal` fires (AbortError). */
  waitForVniMapping(
    expected: readonly { vrf: string; vni: number }[],
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<void>;
  status(): Promise<FrrStatus>;
  /** Reachable: vtysh answers. */
  ping(): Promise<void>;
  /** Forget what was applied (the next apply runs frr-reload.py). */
  forget(): void;
}

/** An L3 VNI and the VRF it belongs to. */
export interface L3Vni {
  readonly vrf: string;
  readonly vni: number;
}

export interface FrrInspection {
  /**
   * True when FRR runs `config` as this state applied it: the same configuration, and a running
   * configuration unchanged since.
   */
  readonly current: boolean;
  /** The L3 VNIs of the running VRFs that `config` drops. */
  readonly droppedL3Vnis: readonly L3Vni[];
  /** The VRF-to-VNI mappings zebra held then, as {@link FrrState.mappedVnis} gives them. */
  readonly mappedVnis?: ReadonlySet<string>;
}

/** How {@link FrrState.mappedVnis} names zebra's mapping of a VRF to its L3 VNI. */
export const vniMappingKey = (vrf: string, vni: number): string => `${vrf}/${vni}`;

/** zebra's mappings as {@link vniMappingKey}s. */
const mappingKeys = (vrfVnis: readonly L3Vni[]): ReadonlySet<string> =>
  new Set(vrfVnis.map((v) => vniMappingKey(v.vrf, v.vni)));

export function createFrrState(target: FrrTarget): FrrState {
  const mappedVnis = async () => mappingKeys(await readVrfVnis(target));
  let applied: { config: string; running: string } | undefined;
  const isCurrent = (config: string, running: string) =>
    applied !== undefined && applied.config === config && applied.running === running;
  return {
    lastAppliedConfig: () => applied?.config,
    async inspect(config) {
      const { running, vrfVnis } = await readRunningConfigAndVrfVnis(target);
      return {
        current: isCurrent(config, running),
        droppedL3Vnis: droppedL3Vnis(running, config),
        mappedVnis: mappingKeys(vrfVnis),
      };
    },
    async releaseL3Vnis(vnis) {
      applied = undefined;
      await releaseL3Vnis(target, vnis);
    },
    async apply(config, inspected) {
      if (inspected?.current !== false && isCurrent(config, await showRunningConfig(target)))
        return { changed: false, added: 0, removed: 0, reloadMs: 0 };
      applied = undefined;
      const t0 = performance.now();
      const result = await reloadFrr({ ...target, config });
      const reloadMs = Math.round(performance.now() - t0);
      applied = { config, running: result.running };
      return {
        changed: result.changed,
        added: result.added.length,
        removed: result.removed.length,
        reloadMs,
      };
    },
    mappedVnis,
    async waitForVniMapping(expected, timeoutMs, signal) {
      if (expected.length === 0) return;
      const until = Date.now() + timeoutMs;
      for (;;) {
        const mapped = await mappedVnis();
        const missing = expected.filter((e) => !mapped.has(vniMappingKey(e.vrf, e.vni)));
        if (missing.length === 0) return;
        if (Date.now() > until) throw new VniMappingTimeoutError(missing, timeoutMs);
        signal?.throwIfAborted();
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    status: () => readFrrStatus(target),
    async ping() {
      await showRunningConfig(target);
    },
    forget() {
      applied = undefined;
    },
  };
}
