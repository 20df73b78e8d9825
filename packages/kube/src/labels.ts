// @fabrik/kube/labels: the pure parts (label selectors, conditions) on their own. The package's
// main entry loads @kubernetes/client-node, whose import alone takes about two seconds; an agent
// reading its intent from a file needs only these.
export { matchesLabelSelector, validateLabelSelector, formatLabelSelector } from './selector.js';
export type { LabelSelector, LabelSelectorRequirement, Labels } from './selector.js';
// The rules themselves are @fabrik/api's; exported here too, as before they moved there.
export { LABEL_SELECTOR_OPERATORS, labelKeyProblem, labelValueProblem } from '@fabrik/api';
export type { LabelSelectorOperator } from '@fabrik/api';
export {
  setCondition,
  removeCondition,
  findCondition,
  validateCondition,
  formatKubeTime,
} from './conditions.js';
export type { Condition, ConditionInput, ConditionStatus, SetConditionResult } from './conditions.js';
