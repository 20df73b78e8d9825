import type {
  AddressSpec,
  AddrGenMode,
  FdbSpec,
  NeighbourSpec,
  NumericSysctls,
  RouteSpec,
} from './objects.js';
import type { BridgeOptions, BridgePortFlags, LinkSpec } from './links/index.js';
import type { DesiredState } from './desired.js';
import type { ObserveScope } from './observe.js';

// The operations a plan is made of, and the plan itself: plan.ts and the plan-*.ts modules make
// them, encode.ts turns them into iproute2 lines, apply.ts runs them.

/** Attributes changed in place by one `ip link set dev NAME ...` line. */
export interface LinkSetChanges {
  readonly alias?: string;
  readonly mtu?: number;
  readonly mac?: string;
  readonly master?: string | null;
  readonly up?: boolean;
}

/** One operation of a plan, in the order it must run. */
export type PlanOp =
  | { readonly op: 'route-del'; readonly route: RouteSpec }
  | { readonly op: 'addr-del'; readonly dev: string; readonly address: AddressSpec }
  | { readonly op: 'link-del'; readonly name: string }
  | { readonly op: 'link-add'; readonly spec: LinkSpec }
  | { readonly op: 'link-addrgenmode'; readonly name: string; readonly mode: AddrGenMode }
  | { readonly op: 'link-set'; readonly name: string; readonly changes: LinkSetChanges }
  | { readonly op: 'bridge-set'; readonly name: string; readonly options: BridgeOptions }
  | { readonly op: 'port-set'; readonly name: string; readonly flags: BridgePortFlags }
  | {
      readonly op: 'addr-add';
      readonly dev: string;
      readonly address: AddressSpec;
      readonly replace: boolean;
    }
  | { readonly op: 'route-replace'; readonly route: RouteSpec }
  | { readonly op: 'neigh-replace'; readonly neigh: NeighbourSpec }
  | { readonly op: 'fdb-add'; readonly entry: FdbSpec }
  | { readonly op: 'sysctl-set'; readonly dev: string; readonly sysctls: NumericSysctls };

/** The result of {@link plan}: what to run, and what `apply` needs to verify it. */
export interface Plan {
  readonly desired: DesiredState;
  readonly options: PlanOptions;
  /** The object types to re-observe when verifying (see {@link observeScopeOf}). */
  readonly scope: ObserveScope;
  readonly ops: readonly PlanOp[];
}

export interface PlanOptions {
  /** Protocol number that marks this owner's routes. Default {@link FABRIK_ROUTE_PROTOCOL}. */
  readonly routeProtocol?: number;
  /**
   * `false`: owned links and routes missing from the desired state are kept, not deleted. For a
   * phase of a larger state (create the VRFs and L3 VNI devices down, reload FRR, then the rest).
   * Default `true`: the desired state is complete.
   */
  readonly prune?: boolean;
  /**
   * Names of links this owner was creating when its process died (its own record, such as a
   * journal written before the batch): such a link that exists without any ifalias is taken as
   * the owner's and marked, instead of refused as foreign. Default: none.
   */
  readonly adopt?: ReadonlySet<string>;
}
