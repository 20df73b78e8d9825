import { LABEL_SELECTOR_OPERATORS, labelKeyProblem, labelValueProblem } from '@fabrik/api';
import { InvalidArgumentError } from './errors.js';

// Label selectors exactly as Kubernetes evaluates them (apimachinery metav1.LabelSelectorAsSelector
// and labels.Requirement.Matches): matchLabels AND every matchExpression; an empty selector matches
// everything. Validation follows labels.NewRequirement: keys are qualified names, values label
// values, In/NotIn need values, Exists/DoesNotExist must have none. The operators and the rules of
// keys and values are @fabrik/api's (the kinds' schemas use the same).

export interface LabelSelectorRequirement {
  readonly key: string;
  /** One of @fabrik/api's LABEL_SELECTOR_OPERATORS; anything else is refused. */
  readonly operator: string;
  readonly values?: readonly string[];
}

/** metav1.LabelSelector. */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

export type Labels = Readonly<Record<string, string>>;

/**
 * Checks a selector as the API server would; throws {@link InvalidArgumentError} naming the first
 * bad field (`field` is the selector's own path, for example `spec.nodeSelector`).
 */
export function validateLabelSelector(selector: LabelSelector, field = 'selector'): void {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    const keyProblem = labelKeyProblem(key);
    if (keyProblem)
      throw new InvalidArgumentError(`${field}.matchLabels[${JSON.stringify(key)}]`, keyProblem);
    const valueProblem = labelValueProblem(value);
    if (valueProblem)
      throw new InvalidArgumentError(`${field}.matchLabels[${JSON.stringify(key)}]`, valueProblem);
  }
  (selector.matchExpressions ?? []).forEach((req, i) => {
    const at = `${field}.matchExpressions[${i}]`;
    const keyProblem = labelKeyProblem(req.key);
    if (keyProblem) throw new InvalidArgumentError(`${at}.key`, keyProblem);
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) {
          throw new InvalidArgumentError(`${at}.values`, `must not be empty for operator ${req.operator}`);
        }
        values.forEach((value, j) => {
          const problem = labelValueProblem(value);
          if (problem) throw new InvalidArgumentError(`${at}.values[${j}]`, problem);
        });
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length !== 0) {
          throw new InvalidArgumentError(`${at}.values`, `must be empty for operator ${req.operator}`);
        }
        break;
      default:
        throw new InvalidArgumentError(
          `${at}.operator`,
          `${JSON.stringify(req.operator)} is not one of ${LABEL_SELECTOR_OPERATORS.join(', ')}`,
        );
    }
  });
}

function requirementMatches(req: LabelSelectorRequirement, labels: Labels): boolean {
  const has = Object.hasOwn(labels, req.key);
  switch (req.operator) {
    case 'In':
      return has && (req.values ?? []).includes(labels[req.key]!);
    case 'NotIn':
      return !has || !(req.values ?? []).includes(labels[req.key]!);
    case 'Exists':
      return has;
    default: // DoesNotExist (validated before)
      return !has;
  }
}

/**
 * Whether `labels` satisfy `selector`, exactly as Kubernetes decides: every matchLabels entry AND
 * every matchExpression; NotIn and DoesNotExist hold when the key is absent; an empty selector `{}`
 * matches everything.
 *
 * An absent selector (`undefined`) also matches everything. That is the meaning of an omitted
 * `nodeSelector` in fabrik's kinds ("all nodes"); Kubernetes' own LabelSelectorAsSelector turns a nil
 * selector into "nothing", so callers with that meaning must check for undefined themselves.
 *
 * Throws {@link InvalidArgumentError} for an invalid selector (In with no values, Exists with values,
 * an unknown operator, a malformed key or value), naming the field under `field`.
 */
export function matchesLabelSelector(
  selector: LabelSelector | undefined,
  labels: Labels | undefined,
  field = 'selector',
): boolean {
  if (selector === undefined) return true;
  validateLabelSelector(selector, field);
  const set = labels ?? {};
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (!Object.hasOwn(set, key) || set[key] !== value) return false;
  }
  return (selector.matchExpressions ?? []).every((req) => requirementMatches(req, set));
}

/**
 * The selector in the API's query syntax (`labelSelector=` of list and watch), as
 * `metav1.FormatLabelSelector` writes it but with `""` for "everything": requirements sorted by key,
 * values sorted. Validates first.
 */
export function formatLabelSelector(selector: LabelSelector | undefined, field = 'selector'): string {
  if (selector === undefined) return '';
  validateLabelSelector(selector, field);
  const parts: { key: string; text: string }[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {}))
    parts.push({ key, text: `${key}=${value}` });
  for (const req of selector.matchExpressions ?? []) {
    const values = [...(req.values ?? [])].sort().join(',');
    const text =
      req.operator === 'In'
        ? `${req.key} in (${values})`
        : req.operator === 'NotIn'
          ? `${req.key} notin (${values})`
          : req.operator === 'Exists'
            ? req.key
            : `!${req.key}`;
    parts.push({ key: req.key, text });
  }
  // A stable sort by key, as labels.internalSelector.Add does.
  return parts
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((p) => p.text)
    .join(',');
}
