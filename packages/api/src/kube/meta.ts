import { z } from 'zod';
import { withRules } from '../rules.js';

// The parts of Kubernetes' object model that fabrik's kinds use, validated as the API server
// validates them (apimachinery's validation of names, labels, selectors and conditions).

const DNS_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const QUALIFIED_NAME = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
/** A qualified name of at most 63 characters (label keys' name part, label values). */
const QUALIFIED_NAME_63 = '([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]';

const DNS_SUBDOMAIN = new RegExp(`^${DNS_LABEL}(\\.${DNS_LABEL})*$`);
const QUALIFIED_NAME_ONLY = new RegExp(`^${QUALIFIED_NAME}$`);
const LABEL_VALUE = new RegExp(`^(${QUALIFIED_NAME})?$`);

/** An object name: a DNS subdomain (RFC 1123) of at most 253 characters, as most kinds require. */
export const ObjectName = z
  .string()
  .max(253)
  .regex(
    DNS_SUBDOMAIN,
    'must be lower case letters, digits, "-" and ".", starting and ending with a letter or digit',
  );

/** A namespace name: a DNS label (RFC 1123) of at most 63 characters. */
export const NamespaceName = z
  .string()
  .max(63)
  .regex(
    new RegExp(`^${DNS_LABEL}$`),
    'must be lower case letters, digits and "-", starting and ending with a letter or digit (at most 63)',
  );

/** A label key: an optional DNS-subdomain prefix and `/`, then a name of at most 63 characters. */
export const LabelKey = z
  .string()
  .max(317)
  .regex(
    new RegExp(`^(${DNS_LABEL}(\\.${DNS_LABEL})*/)?${QUALIFIED_NAME_63}$`),
    'must be a qualified name: an optional DNS prefix and "/", then at most 63 of A-Z a-z 0-9 - _ . starting and ending alphanumeric',
  );

/** A label value: empty, or at most 63 characters of A-Z a-z 0-9 - _ . starting and ending alphanumeric. */
export const LabelValue = z
  .string()
  .max(63)
  .regex(LABEL_VALUE, 'must be empty or A-Z a-z 0-9 - _ . starting and ending alphanumeric (at most 63)');

/**
 * Why `key` is not a valid label key (a qualified name: `[prefix/]name`, as apimachinery's
 * IsQualifiedName), or undefined when it is. For code that checks keys outside a schema (label
 * selectors given to a client, condition types, taints); the messages name the part at fault.
 */
export function labelKeyProblem(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) return 'a label key has at most one "/"';
  const name = parts.length === 2 ? parts[1]! : parts[0]!;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix.length === 0) return 'the prefix before "/" must not be empty';
    if (prefix.length > 253) return 'the prefix must be at most 253 characters';
    if (!DNS_SUBDOMAIN.test(prefix)) return 'the prefix must be a lowercase DNS subdomain';
  }
  if (name.length === 0) return 'the name part must not be empty';
  if (name.length > 63) return 'the name part must be at most 63 characters';
  if (!QUALIFIED_NAME_ONLY.test(name)) {
    return 'the name part must consist of alphanumerics, "-", "_" or ".", and start and end with an alphanumeric';
  }
  return undefined;
}

/** Why `value` is not a valid label value, or undefined when it is (the empty string is valid). */
export function labelValueProblem(value: string): string | undefined {
  if (value.length > 63) return 'a label value must be at most 63 characters';
  if (!LABEL_VALUE.test(value)) {
    return 'a label value must consist of alphanumerics, "-", "_" or ".", and start and end with an alphanumeric';
  }
  return undefined;
}

/**
 * A map with at most `max` entries. The API server needs the bound (maxProperties) to estimate the
 * cost of CEL rules over the map's keys; zod checks the same bound.
 */
export function boundedRecord<K extends z.core.$ZodRecordKey, V extends z.ZodType>(
  key: K,
  value: V,
  max: number,
) {
  return z
    .record(key, value)
    .refine((r) => Object.keys(r).length <= max, `must have at most ${max} entries`)
    .meta({ maxProperties: max });
}

/** An RFC 3339 time as the API server writes it (`2026-11-30T04:20:00Z`). */
export const Timestamp = z.iso.datetime({ offset: true });

/** `metadata` of an object, with the fields fabrik reads; the server's other fields are kept as they are. */
export function objectMeta<N extends z.ZodType<string>>(name: N) {
  return z.looseObject({
    name,
    labels: z.record(LabelKey, LabelValue).optional(),
    annotations: z.record(z.string(), z.string()).optional(),
    generation: z.number().int().min(0).optional(),
    resourceVersion: z.string().optional(),
    uid: z.string().optional(),
    creationTimestamp: Timestamp.optional(),
    deletionTimestamp: Timestamp.optional(),
    finalizers: z.array(z.string()).optional(),
  });
}

/** The operators of a `matchExpressions` entry (@fabrik/kube's selector code uses this list too). */
export const LABEL_SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;
export type LabelSelectorOperator = (typeof LABEL_SELECTOR_OPERATORS)[number];

/** One `matchExpressions` entry: In/NotIn need values, Exists/DoesNotExist take none. */
export const LabelSelectorRequirement = withRules(
  z
    .object({
      key: LabelKey,
      operator: z.enum(LABEL_SELECTOR_OPERATORS),
      values: z.array(LabelValue).max(64).optional(),
    })
    .strict(),
  [
    {
      message: 'must be non-empty when operator is In or NotIn',
      field: ['values'],
      holds: (r) => !(r.operator === 'In' || r.operator === 'NotIn') || (r.values ?? []).length > 0,
      cel: "!(self.operator in ['In', 'NotIn']) || (has(self.values) && size(self.values) > 0)",
    },
    {
      message: 'must be empty when operator is Exists or DoesNotExist',
      field: ['values'],
      holds: (r) =>
        !(r.operator === 'Exists' || r.operator === 'DoesNotExist') || (r.values ?? []).length === 0,
      cel: "!(self.operator in ['Exists', 'DoesNotExist']) || !has(self.values) || size(self.values) == 0",
    },
  ],
);
export type LabelSelectorRequirement = z.infer<typeof LabelSelectorRequirement>;

/**
 * A label selector (metav1.LabelSelector): every matchLabels pair and every matchExpressions
 * requirement must hold; an empty selector selects everything.
 */
export const LabelSelector = z
  .object({
    matchLabels: boundedRecord(LabelKey, LabelValue, 64).optional(),
    matchExpressions: z.array(LabelSelectorRequirement).max(64).optional(),
  })
  .strict();
export type LabelSelector = z.infer<typeof LabelSelector>;

/** One condition (metav1.Condition), as apimachinery validates it. */
export const Condition = z
  .object({
    type: z
      .string()
      .max(316)
      .regex(
        new RegExp(`^(${DNS_LABEL}(\\.${DNS_LABEL})*/)?${QUALIFIED_NAME}$`),
        'must be a CamelCase or qualified name (FabrikNetnsReady)',
      ),
    status: z.enum(['True', 'False', 'Unknown']),
    observedGeneration: z.number().int().min(0).optional(),
    lastTransitionTime: Timestamp,
    reason: z
      .string()
      .min(1)
      .max(1024)
      .regex(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/, 'must be CamelCase (letters, digits, _ , :)'),
    message: z.string().max(32768),
  })
  .strict();
export type Condition = z.infer<typeof Condition>;

/** A list of conditions, at most one per type (a list-map keyed by `type`, as in Kubernetes). */
export const Conditions = z
  .array(Condition)
  .max(32)
  .refine(
    (list) => new Set(list.map((c) => c.type)).size === list.length,
    'each condition type may appear once',
  )
  .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] });

/** `metadata.name` of an unvalidated object, for error messages; `(unnamed)` when it has none. */
export function objectNameOf(input: unknown): string {
  const name = (input as { metadata?: { name?: unknown } } | null)?.metadata?.name;
  return typeof name === 'string' && name.length <= 253 ? name : '(unnamed)';
}
