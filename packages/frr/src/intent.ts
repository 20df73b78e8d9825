// The routing intent is the node's contract and lives in @fabrik/api (the agents plan from it,
// this package renders it). It is re-exported here under the same names, so code written
// against @fabrik/frr keeps working.
import { REDACTED } from '@fabrik/api';

export {
  FrrIntentSchema,
  FRR_TEMPLATE_SETS,
  RouteTarget,
  FrrIntentError,
  isFrrIntentError,
  parseFrrIntent,
  redactIntent,
  frrIntentJsonSchema,
  pathText,
  REDACTED,
} from '@fabrik/api';
export type {
  FrrIntent,
  FrrIntentInput,
  FrrIntentIssue,
  FrrTemplateSet,
  FrrVrfIntent,
  FrrLayer2Intent,
  FrrPrefixRule,
  FrrUnderlayNeighbor,
} from '@fabrik/api';

/** Replaces the secret of every `password SECRET` in FRR configuration text or FRR output. */
export function redactConfigText(text: string): string {
  return text.replace(/(\bpassword\s+)\S+/g, `$1${REDACTED}`);
}
