// Admission by a CRD's structural schema, in kube-apiserver's order: prune unknown fields, apply
// defaults, validate (OpenAPI keywords, then x-kubernetes-validations CEL rules). Error texts follow
// k8s.io/apimachinery field.Error and kube-openapi's validate wording.
import { celToString, CelEvalError, compileRule, parseCidr, parseIp, type CompiledRule } from './cel.js';
import type { FieldError } from './errors.js';
import { clone, deepEqual, isObject, type JsonObject, type JsonValue } from './json.js';

interface Rule {
  compiled: CompiledRule;
  message: string | undefined;
  messageExpression: CompiledRule | undefined;
  fieldPath: string | undefined;
  reason: string | undefined;
}

export interface CompiledSchema {
  raw: JsonObject;
  /** Value validations of structural schemas: anyOf/oneOf/allOf/not (no types or defaults inside). */
  anyOf: CompiledSchema[];
  oneOf: CompiledSchema[];
  allOf: CompiledSchema[];
  not: CompiledSchema | undefined;
  properties: ReadonlyMap<string, CompiledSchema>;
  items: CompiledSchema | undefined;
  additionalProperties: CompiledSchema | undefined;
  preserveUnknownFields: boolean;
  rules: Rule[];
}

/** Compiles every CEL rule of the schema; throws CelUnsupportedError for one it cannot evaluate. */
export function compileSchema(raw: JsonObject): CompiledSchema {
  const properties = new Map<string, CompiledSchema>();
  if (isObject(raw.properties)) {
    for (const [name, prop] of Object.entries(raw.properties))
      if (isObject(prop)) properties.set(name, compileSchema(prop));
  }
  const rules: Rule[] = [];
  for (const rule of Array.isArray(raw['x-kubernetes-validations']) ? raw['x-kubernetes-validations'] : []) {
    if (!isObject(rule) || typeof rule.rule !== 'string') continue;
    rules.push({
      compiled: compileRule(rule.rule),
      message: typeof rule.message === 'string' ? rule.message : undefined,
      messageExpression:
        typeof rule.messageExpression === 'string' ? compileRule(rule.messageExpression) : undefined,
      fieldPath: typeof rule.fieldPath === 'string' ? rule.fieldPath : undefined,
      reason: typeof rule.reason === 'string' ? rule.reason : undefined,
    });
  }
  const list = (key: string): CompiledSchema[] =>
    Array.isArray(raw[key]) ? raw[key].filter(isObject).map(compileSchema) : [];
  return {
    raw,
    anyOf: list('anyOf'),
    oneOf: list('oneOf'),
    allOf: list('allOf'),
    not: isObject(raw.not) ? compileSchema(raw.not) : undefined,
    properties,
    items: isObject(raw.items) ? compileSchema(raw.items) : undefined,
    additionalProperties: isObject(raw.additionalProperties)
      ? compileSchema(raw.additionalProperties)
      : undefined,
    preserveUnknownFields: raw['x-kubernetes-preserve-unknown-fields'] === true,
    rules,
  };
}

const ROOT_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** Drops fields the schema does not declare; returns the paths it dropped (for fieldValidation). */
export function prune(schema: CompiledSchema, value: JsonValue, path = ''): string[] {
  const dropped: string[] = [];
  if (Array.isArray(value)) {
    if (schema.items)
      value.forEach((item, i) => dropped.push(...prune(schema.items!, item, `${path}[${i}]`)));
    return dropped;
  }
  if (!isObject(value)) return dropped;
  for (const key of Object.keys(value)) {
    if (path === '' && ROOT_FIELDS.has(key)) continue;
    const child = schema.properties.get(key) ?? schema.additionalProperties;
    if (child) dropped.push(...prune(child, value[key]!, join(path, key)));
    else if (!schema.preserveUnknownFields && schema.raw.additionalProperties !== true) {
      delete value[key];
      dropped.push(join(path, key));
    }
  }
  return dropped;
}

/** Applies `default`s in place, nested ones included, as structural defaulting does. */
export function applyDefaults(schema: CompiledSchema, value: JsonValue): void {
  if (Array.isArray(value)) {
    if (schema.items) for (const item of value) applyDefaults(schema.items, item);
    return;
  }
  if (!isObject(value)) return;
  for (const [key, prop] of schema.properties) {
    const isNullWithDefault =
      value[key] === null && prop.raw.nullable !== true && prop.raw.default !== undefined;
    if ((value[key] === undefined || isNullWithDefault) && prop.raw.default !== undefined) {
      value[key] = clone(prop.raw.default);
    }
    if (value[key] !== undefined) applyDefaults(prop, value[key]!);
  }
  if (schema.additionalProperties) {
    for (const [key, child] of Object.entries(value)) {
      if (!schema.properties.has(key) && child !== undefined)
        applyDefaults(schema.additionalProperties, child);
    }
  }
}

/** Go's %v / %q / JSON rendering of a bad value, as field.Error.ErrorBody prints it. */
function showValue(value: JsonValue): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function jsonType(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function invalidValue(field: string, value: JsonValue, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, body: `Invalid value: ${showValue(value)}: ${detail}` };
}

function typeMatches(type: string, value: JsonValue): boolean {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return true;
  }
}

function listMapKey(schema: CompiledSchema, item: JsonValue): string | undefined {
  const keys = schema.raw['x-kubernetes-list-map-keys'];
  if (!Array.isArray(keys) || !isObject(item)) return undefined;
  return JSON.stringify(keys.map((k) => (typeof k === 'string' ? (item[k] ?? null) : null)));
}

function validateKeywords(schema: CompiledSchema, value: JsonValue, field: string): FieldError[] {
  const s = schema.raw;
  const errors: FieldError[] = [];
  if (value === null) {
    if (s.nullable === true) return errors;
    if (typeof s.type === 'string') {
      return [invalidValue(field, 'null', `${field} in body must be of type ${s.type}: "null"`)];
    }
  }
  if (s['x-kubernetes-int-or-string'] === true) {
    if (!(typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value)))) {
      errors.push(
        invalidValue(
          field,
          jsonType(value),
          `${field} in body must be of type integer,string: "${jsonType(value)}"`,
        ),
      );
      return errors;
    }
  } else if (typeof s.type === 'string' && !typeMatches(s.type, value)) {
    return [
      invalidValue(
        field,
        jsonType(value),
        `${field} in body must be of type ${s.type}: "${jsonType(value)}"`,
      ),
    ];
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => deepEqual(e, value))) {
    errors.push({
      type: 'FieldValueNotSupported',
      field,
      body: `Unsupported value: ${showValue(value)}: supported values: ${s.enum.map((e) => JSON.stringify(e)).join(', ')}`,
    });
  }
  if (typeof value === 'number') {
    if (typeof s.maximum === 'number') {
      if (s.exclusiveMaximum === true ? value >= s.maximum : value > s.maximum) {
        const rel = s.exclusiveMaximum === true ? 'less than' : 'less than or equal to';
        errors.push(invalidValue(field, value, `${field} in body should be ${rel} ${s.maximum}`));
      }
    }
    if (typeof s.minimum === 'number') {
      if (s.exclusiveMinimum === true ? value <= s.minimum : value < s.minimum) {
        const rel = s.exclusiveMinimum === true ? 'greater than' : 'greater than or equal to';
        errors.push(invalidValue(field, value, `${field} in body should be ${rel} ${s.minimum}`));
      }
    }
    if (typeof s.multipleOf === 'number' && value % s.multipleOf !== 0) {
      errors.push(invalidValue(field, value, `${field} in body should be a multiple of ${s.multipleOf}`));
    }
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof s.maxLength === 'number' && length > s.maxLength) {
      errors.push({
        type: 'FieldValueTooLong',
        field,
        body: `Too long: may not be more than ${s.maxLength} ${s.maxLength === 1 ? 'byte' : 'bytes'}`,
      });
    }
    if (typeof s.minLength === 'number' && length < s.minLength) {
      errors.push(
        invalidValue(field, value, `${field} in body should be at least ${s.minLength} chars long`),
      );
    }
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(value)) {
      errors.push(invalidValue(field, value, `${field} in body should match '${s.pattern}'`));
    }
  }
  if (Array.isArray(value)) {
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) {
      errors.push({
        type: 'FieldValueTooMany',
        field,
        body: `Too many: ${value.length}: must have at most ${s.maxItems} ${s.maxItems === 1 ? 'item' : 'items'}`,
      });
    }
    if (typeof s.minItems === 'number' && value.length < s.minItems) {
      errors.push(invalidValue(field, value, `${field} in body should have at least ${s.minItems} items`));
    }
    const listType = s['x-kubernetes-list-type'];
    if (listType === 'set' || listType === 'map' || s.uniqueItems === true) {
      const seen: string[] = [];
      value.forEach((item, i) => {
        const key = listType === 'map' ? listMapKey(schema, item) : JSON.stringify(item);
        if (key !== undefined && seen.includes(key)) {
          errors.push({
            type: 'FieldValueDuplicate',
            field: `${field}[${i}]`,
            body: `Duplicate value: ${showValue(item)}`,
          });
        }
        if (key !== undefined) seen.push(key);
      });
    }
  }
  if (typeof value === 'string' && typeof s.format === 'string') {
    const check = FORMATS[s.format];
    if (check && !check(value)) {
      errors.push(
        invalidValue(field, value, `${field} in body must be of type ${s.format}: ${JSON.stringify(value)}`),
      );
    }
  }
  errors.push(...validateComposition(schema, value, field));
  if (isObject(value)) {
    for (const name of Array.isArray(s.required) ? s.required : []) {
      if (typeof name === 'string' && value[name] === undefined) {
        errors.push({ type: 'FieldValueRequired', field: join(field, name), body: 'Required value' });
      }
    }
    const count = Object.keys(value).length;
    if (typeof s.maxProperties === 'number' && count > s.maxProperties) {
      errors.push({
        type: 'FieldValueTooMany',
        field,
        body: `Too many: ${count}: must have at most ${s.maxProperties} items`,
      });
    }
    if (typeof s.minProperties === 'number' && count < s.minProperties) {
      errors.push(
        invalidValue(field, value, `${field} in body should have at least ${s.minProperties} properties`),
      );
    }
  }
  return errors;
}

/** The string formats kube-openapi checks (others are accepted as they are, as kube does). */
const FORMATS: Record<string, (value: string) => boolean> = {
  ipv4: (v) => parseIp(v)?.family === 4,
  ipv6: (v) => parseIp(v)?.family === 6,
  cidr: (v) => parseCidr(v) !== undefined,
  mac: (v) => /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$/.test(v),
  uuid: (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v),
  'date-time': (v) =>
    /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(v) &&
    !Number.isNaN(Date.parse(v)),
  date: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)),
  hostname: (v) =>
    v.length <= 253 &&
    /^[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)*$/.test(v),
  byte: (v) => /^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(v),
};

/** anyOf/oneOf/allOf/not, with kube-openapi's messages followed by the alternatives' errors. */
function validateComposition(schema: CompiledSchema, value: JsonValue, field: string): FieldError[] {
  const errors: FieldError[] = [];
  const results = (schemas: CompiledSchema[]) => schemas.map((sub) => validate(sub, value, undefined, field));
  if (schema.anyOf.length > 0) {
    const outcomes = results(schema.anyOf);
    if (outcomes.every((e) => e.length > 0)) {
      errors.push(
        invalidValue(field, value, 'must validate at least one schema (anyOf)'),
        ...outcomes.flat(),
      );
    }
  }
  if (schema.oneOf.length > 0) {
    const outcomes = results(schema.oneOf);
    if (outcomes.filter((e) => e.length === 0).length !== 1) {
      errors.push(
        invalidValue(field, value, 'must validate one and only one schema (oneOf)'),
        ...outcomes.flat(),
      );
    }
  }
  errors.push(...results(schema.allOf).flat());
  if (schema.not && validate(schema.not, value, undefined, field).length === 0) {
    errors.push(invalidValue(field, value, 'must not validate the schema (not)'));
  }
  return errors;
}

function schemaTypeName(schema: CompiledSchema): string {
  return typeof schema.raw.type === 'string' ? schema.raw.type : 'object';
}

function evaluateRules(
  schema: CompiledSchema,
  value: JsonValue,
  old: JsonValue | undefined,
  field: string,
): FieldError[] {
  const errors: FieldError[] = [];
  for (const rule of schema.rules) {
    if (rule.compiled.isTransition && old === undefined) continue;
    // At the root kube prints a rule's path as <nil>, or the fieldPath alone.
    const at =
      rule.fieldPath === undefined
        ? field === ''
          ? '<nil>'
          : field
        : (field + rule.fieldPath).replace(/^\./, '');
    let message: string;
    try {
      if (rule.compiled.evaluate(value, old) === true) continue;
      message =
        rule.messageExpression !== undefined
          ? celToString(rule.messageExpression.evaluate(value, old))
          : (rule.message ?? `failed rule: ${rule.compiled.source}`);
    } catch (err) {
      if (!(err instanceof CelEvalError)) throw err;
      message = `${err.message} evaluating rule: ${rule.compiled.source}`;
    }
    switch (rule.reason) {
      case 'FieldValueForbidden':
        errors.push({ type: rule.reason, field: at, body: `Forbidden: ${message}` });
        break;
      case 'FieldValueRequired':
        errors.push({ type: rule.reason, field: at, body: `Required value: ${message}` });
        break;
      case 'FieldValueDuplicate':
        errors.push({
          type: rule.reason,
          field: at,
          body: `Duplicate value: ${JSON.stringify(schemaTypeName(schema))}: ${message}`,
        });
        break;
      default:
        errors.push({
          type: 'FieldValueInvalid',
          field: at,
          body: `Invalid value: ${JSON.stringify(schemaTypeName(schema))}: ${message}`,
        });
    }
  }
  return errors;
}

/** A CRD schema may constrain metadata.name and metadata.generateName, and nothing else there. */
function validateMetadataNames(root: CompiledSchema, metadata: JsonObject): FieldError[] {
  const metaSchema = root.properties.get('metadata');
  if (!metaSchema) return [];
  return (['name', 'generateName'] as const).flatMap((key) => {
    const sub = metaSchema.properties.get(key);
    const v = metadata[key];
    return sub && v !== undefined ? validate(sub, v, undefined, `metadata.${key}`) : [];
  });
}

/**
 * Validates `value` (and, on an update, the transition rules against `old`, correlated through
 * object fields and listType=map keys as kube correlates them). Root fields apiVersion/kind/metadata
 * are left to the caller.
 */
export function validate(
  schema: CompiledSchema,
  value: JsonValue,
  old?: JsonValue,
  field = '',
): FieldError[] {
  const errors = field === '' ? [] : validateKeywords(schema, value, field);
  if (errors.some((e) => e.type === 'FieldValueTypeInvalid' || e.body.includes('must be of type')))
    return errors;
  if (isObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (field === '' && key === 'metadata' && isObject(child)) {
        errors.push(...validateMetadataNames(schema, child));
        continue;
      }
      if (child === undefined || (field === '' && ROOT_FIELDS.has(key))) continue;
      const childSchema = schema.properties.get(key) ?? schema.additionalProperties;
      if (childSchema)
        errors.push(...validate(childSchema, child, isObject(old) ? old[key] : undefined, join(field, key)));
    }
  } else if (Array.isArray(value) && schema.items) {
    const correlate = schema.raw['x-kubernetes-list-type'] === 'map' && Array.isArray(old);
    value.forEach((item, i) => {
      const key = correlate ? listMapKey(schema, item) : undefined;
      const oldItem =
        correlate && key !== undefined
          ? (old as JsonValue[]).find((o) => listMapKey(schema, o) === key)
          : undefined;
      errors.push(...validate(schema.items!, item, oldItem, `${field}[${i}]`));
    });
  }
  errors.push(...evaluateRules(schema, value, old, field));
  return errors;
}
