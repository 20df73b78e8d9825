// @fabrik/kube/labels: the pure parts (label selectors, conditions) on their own. The package's
// main entry loads @kubernetes/client-node, whose import alone takes about two seconds; an agent
// reading its intent from a file needs only these.
export {
  LABEL_SELECTOR_OPERATORS,
  matchesLabelSelector,
  validateLabelSelector,
  formatLabelSelector,
  labelKeyProblem,
  labelValueProblem,
} from './selector.js';
export type { LabelSelector, LabelSelectorRequirement, LabelSelectorOperator, Labels } from './selector.js';
export {
  setCondition,
  removeCondition,
  findCondition,
  validateCondition,
  formatKubeTime,
} from './conditions.js';
export type { Condition, ConditionInput, ConditionStatus, SetConditionResult } from './conditions.js';
