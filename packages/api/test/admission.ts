// A model of what the Kubernetes API server checks when it admits a custom object: the CRD's
// structural schema (ajv, with defaults applied first, as the server does), unknown fields (as
// kubectl's strict field validation reports them) and the CEL rules of x-kubernetes-validations
// (@marcbachmann/cel-js plus the Kubernetes CEL functions fabrik's rules use). Transition rules
// (oldSelf) run only when an old object is given. Test-only: it lets the unit tests prove that
// the generated CRDs refuse what zod refuses without a real API server.
import { Environment } from '@marcbachmann/cel-js';
import { Ajv, type ErrorObject } from 'ajv';
import { ipToBigInt, maxPrefixLength } from '../src/network/ip.js';
import type { JsonSchema } from '../src/index.js';
import { celField } from '../src/rules.js';

/** The Kubernetes CIDR type of the CEL `cidr` library, as far as fabrik's rules use it. */
class CelCidr {
  constructor(
    /** The address part as a number (host bits kept, as `cidr()` keeps them). */
    readonly value: bigint,
    /** 32 or 128. */
    readonly bits: bigint,
    readonly length: bigint,
  ) {}
  static parse(text: string): CelCidr {
    const [address = '', length = ''] = text.split('/');
    return new CelCidr(ipToBigInt(address), BigInt(maxPrefixLength(address)), BigInt(length));
  }
  masked(): CelCidr {
    const host = this.bits - this.length;
    return new CelCidr((this.value >> host) << host, this.bits, this.length);
  }
  containsAddress(address: string): boolean {
    if (BigInt(maxPrefixLength(address)) !== this.bits) return false;
    const host = this.bits - this.length;
    return ipToBigInt(address) >> host === this.value >> host;
  }
}

const cel = new Environment({ unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false })
  .registerType('net.CIDR', CelCidr)
  .registerFunction('cidr(string): net.CIDR', (s: string) => CelCidr.parse(s))
  .registerFunction('net.CIDR.containsIP(string): bool', (c: CelCidr, ip: string) => c.containsAddress(ip))
  .registerFunction('net.CIDR.containsCIDR(string): bool', (c: CelCidr, text: string) => {
    const other = CelCidr.parse(text);
    return other.bits === c.bits && other.length >= c.length && c.containsAddress(text.split('/')[0] ?? '');
  })
  .registerFunction('net.CIDR.masked(): net.CIDR', (c: CelCidr) => c.masked())
  // Kubernetes' ip() returns an IP, compared here with == only: the address as a number does the same.
  .registerFunction('net.CIDR.ip(): string', (c: CelCidr) => `${c.bits}:${c.value}`)
  .registerFunction('ip(string): string', (text: string) => `${maxPrefixLength(text)}:${ipToBigInt(text)}`);

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false, validateFormats: false });

/** One reason the API server would refuse the object: `spec.vlan: must be <= 4094`. */
export interface AdmissionError {
  readonly path: string;
  readonly message: string;
}

/**
 * What the API server would answer to creating `object` (or updating `old` to it) under
 * `schema` (a CRD's openAPIV3Schema): no errors, or the fields at fault.
 */
export function admissionErrors(schema: JsonSchema, object: unknown, old?: unknown): AdmissionError[] {
  const value = structuredClone(object);
  const validate = ajv.compile(schema);
  if (!validate(value)) return (validate.errors ?? []).map(ajvError);
  // metadata is the API server's own: it checks the name (a DNS subdomain for every custom
  // resource); the CRD's schema may only narrow it.
  const { metadata, ...rest } = value as { metadata?: { name?: unknown } };
  const name = metadata?.name;
  if (typeof name !== 'string' || name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
    return [{ path: 'metadata.name', message: 'must be a lowercase RFC 1123 subdomain' }];
  }
  const unknown = unknownFields(schema, rest, '');
  if (unknown.length > 0) return unknown;
  const duplicates = listTypeErrors(schema, value, '');
  if (duplicates.length > 0) return duplicates;
  return celErrors(schema, value, old, '');
}

function ajvError(e: ErrorObject): AdmissionError {
  const segments = e.instancePath.split('/').slice(1);
  if (e.keyword === 'required')
    segments.push(String((e.params as { missingProperty: string }).missingProperty));
  return { path: pathOf(segments), message: e.message ?? e.keyword };
}

function pathOf(segments: readonly string[]): string {
  return segments.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('') || '(root)';
}

function join(path: string, key: string | number): string {
  return typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;
}

function unknownFields(schema: JsonSchema, value: unknown, path: string): AdmissionError[] {
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) return [];
  if (Array.isArray(value)) {
    const items = schema.items as JsonSchema | undefined;
    return items ? value.flatMap((v, i) => unknownFields(items, v, join(path, i))) : [];
  }
  if (typeof value !== 'object' || value === null) return [];
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  const additional = schema.additionalProperties as JsonSchema | undefined;
  return Object.entries(value).flatMap(([k, v]) => {
    const child = properties?.[k] ?? additional;
    if (child === undefined) return [{ path: join(path, k), message: 'unknown field' }];
    return unknownFields(child, v, join(path, k));
  });
}

/** Duplicates in `x-kubernetes-list-type: set` lists and duplicate keys in `map` lists. */
function listTypeErrors(schema: JsonSchema, value: unknown, path: string): AdmissionError[] {
  const errors: AdmissionError[] = [];
  if (Array.isArray(value)) {
    const listType = schema['x-kubernetes-list-type'];
    const keys = (schema['x-kubernetes-list-map-keys'] as string[] | undefined) ?? [];
    const identity = (item: unknown) =>
      listType === 'map'
        ? JSON.stringify(keys.map((k) => (item as Record<string, unknown>)[k]))
        : JSON.stringify(item);
    if (listType === 'set' || listType === 'map') {
      const seen = new Set<string>();
      value.forEach((item, i) => {
        const id = identity(item);
        if (seen.has(id)) errors.push({ path: join(path, i), message: 'Duplicate value' });
        seen.add(id);
      });
    }
    const items = schema.items as JsonSchema | undefined;
    if (items) value.forEach((v, i) => errors.push(...listTypeErrors(items, v, join(path, i))));
  } else if (typeof value === 'object' && value !== null) {
    const properties = schema.properties as Record<string, JsonSchema> | undefined;
    const additional = schema.additionalProperties as JsonSchema | undefined;
    for (const [k, v] of Object.entries(value)) {
      const child = properties?.[k] ?? additional;
      if (child) errors.push(...listTypeErrors(child, v, join(path, k)));
    }
  }
  return errors;
}

/** `value` as kube-apiserver shows it to CEL: fields named like CEL keywords escaped (celField). */
function celView(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(celView);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [celField(k), celView(v)]));
}

function celErrors(schema: JsonSchema, value: unknown, old: unknown, path: string): AdmissionError[] {
  if (value === undefined) return [];
  const errors: AdmissionError[] = [];
  for (const rule of (schema['x-kubernetes-validations'] as {
    rule: string;
    message: string;
    fieldPath?: string;
  }[]) ?? []) {
    const transition = rule.rule.includes('oldSelf');
    if (transition && old === undefined) continue;
    const at = (path + (rule.fieldPath ?? '')).replace(/^\./, '');
    let holds: unknown;
    try {
      const self = celView(value);
      holds = cel.evaluate(rule.rule, transition ? { self, oldSelf: celView(old) } : { self });
    } catch (e) {
      // The API server refuses an object whose rule cannot be evaluated, too.
      errors.push({ path: at, message: `rule evaluation failed: ${(e as Error).message}` });
      continue;
    }
    if (holds !== true) errors.push({ path: at, message: rule.message });
  }
  if (Array.isArray(value)) {
    const items = schema.items as JsonSchema | undefined;
    if (items) value.forEach((v, i) => errors.push(...celErrors(items, v, undefined, join(path, i))));
  } else if (typeof value === 'object' && value !== null) {
    const properties = schema.properties as Record<string, JsonSchema> | undefined;
    const additional = schema.additionalProperties as JsonSchema | undefined;
    const oldObject = (typeof old === 'object' && old !== null ? old : {}) as Record<string, unknown>;
    for (const [k, v] of Object.entries(value)) {
      const child = properties?.[k] ?? additional;
      if (child) errors.push(...celErrors(child, v, oldObject[k], join(path, k)));
    }
  }
  return errors;
}
