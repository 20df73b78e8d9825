import type { ConditionInput } from '@fabrik/kube/labels';
import type { IdentityProblem } from './allocate.js';

/** The operator's condition on a NodeNetworkConfig: whether the node has an identity. */
export const IDENTITY_CONDITION = 'IdentityAllocated';

/** The IdentityAllocated condition for a node's problems (none: True). */
export function identityCondition(problems: readonly IdentityProblem[]): ConditionInput {
  const first = problems[0];
  if (first === undefined)
    return {
      type: IDENTITY_CONDITION,
      status: 'True',
      reason: 'Allocated',
      message: 'asn, routerId and vtepIp allocated',
    };
  return {
    type: IDENTITY_CONDITION,
    status: 'False',
    reason: first.reason,
    message: problems.map((p) => `${p.field}: ${p.message}`).join('; '),
  };
}
