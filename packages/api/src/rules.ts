import type { z } from 'zod';

/**
 * A rule about one object that a JSON schema cannot express structurally (two fields that depend
 * on each other, a value relative to another). It is written once, next to the schema, in both
 * languages that enforce it: `holds` for zod (agents, CLIs, tests) and `cel` for the Kubernetes API
 * server (`x-kubernetes-validations` in the generated CRD). Both report `message` on `field`.
 */
export interface ObjectRule<T> {
  /** Says what is wrong and what to do; the same text in zod and in the API server's answer. */
  readonly message: string;
  /** The field the message is about, relative to the object the rule is attached to. */
  readonly field?: readonly string[];
  /** The rule for zod; absent for rules only the API server can check (transition rules). */
  readonly holds?: (value: T) => boolean;
  /** The same rule in Kubernetes CEL; absent for rules CEL cannot express (documented). */
  readonly cel?: string;
}

/** One entry of a CRD's `x-kubernetes-validations`. */
export interface CelValidation {
  readonly rule: string;
  readonly message: string;
  readonly fieldPath?: string;
}

/** The JSON-schema key under which CEL rules travel from zod metadata into the CRD. */
export const CEL_VALIDATIONS = 'x-kubernetes-validations';

/** `schema` with `rules` checked by zod after the schema itself, and carried as CEL into CRDs. */
export function withRules<S extends z.ZodType>(schema: S, rules: readonly ObjectRule<z.output<S>>[]): S {
  const refined = schema.superRefine((value, ctx) => {
    for (const rule of rules) {
      if (rule.holds && !rule.holds(value)) {
        ctx.addIssue({ code: 'custom', path: [...(rule.field ?? [])], message: rule.message });
      }
    }
  });
  const cel: CelValidation[] = rules.flatMap((r) =>
    r.cel === undefined
      ? []
      : [{ rule: r.cel, message: r.message, ...(r.field ? { fieldPath: `.${r.field.join('.')}` } : {}) }],
  );
  return (cel.length > 0 ? refined.meta({ [CEL_VALIDATIONS]: cel }) : refined) as S;
}

/** CEL's reserved words: kube-apiserver exposes a field named like one as `__<word>__` to rules. */
const CEL_RESERVED = new Set(
  'true false null in as break const continue else for function if import let loop package namespace return var void while'.split(
    ' ',
  ),
);

/** The name under which a CEL rule of kube-apiserver sees the field `name`. */
export function celField(name: string): string {
  return CEL_RESERVED.has(name) ? `__${name}__` : name;
}
