// fabrik-operator as a library: the pure parts its tests and tools use. The binary is cli.ts.
export { allocateIdentities, IDENTITY_PROBLEM_REASONS } from './identity/allocate.js';
export type {
  IdentityAllocation,
  IdentityClaim,
  IdentityField,
  IdentityPools,
  IdentityProblem,
  IdentityProblemReason,
} from './identity/allocate.js';
export { IDENTITY_CONDITION, identityCondition } from './identity/conditions.js';
export { renderCluster, renderNode, nodeNetworkConfigOf } from './render.js';
export type { ClusterState, NodeInput, RenderedNode } from './render.js';
export { OperatorConfig, OPERATOR_CONFIG_PATH } from './config.js';
export type { OperatorConfigInput } from './config.js';
export { leaseDecision } from './lease.js';
export type { LeaseDecision } from './lease.js';
export { canonicalJson, revisionOf } from './revision.js';
