// JSON Schema (draft 2020-12, as z.toJSONSchema writes it) -> a Kubernetes structural schema
// (OpenAPI v3 as apiextensions.k8s.io/v1 accepts it): every node has a type, no $ref, unions keep
// one common type outside and only value validations inside anyOf/oneOf, records become
// additionalProperties, and key rules that OpenAPI cannot say travel as CEL. Anything this
// converter does not know is an error, never dropped silently.
import { FabrikError } from '../errors.js';

/** A JSON schema node (both the input and the structural output). */
export type JsonSchema = { [key: string]: unknown };

/** The input cannot become a structural schema; `path` says where (`properties.spec.properties.vlan`). */
export class StructuralSchemaError extends FabrikError<'STRUCTURAL_SCHEMA'> {
  override readonly name = 'StructuralSchemaError';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super('STRUCTURAL_SCHEMA', `${path || '(root)'}: ${message}`);
  }
}

const ANNOTATIONS = ['description', 'default'] as const;
const KUBERNETES_EXTENSIONS = [
  'x-kubernetes-validations',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-int-or-string',
  'x-kubernetes-embedded-resource',
] as const;
/** Keywords that only constrain values: the ones allowed inside anyOf/oneOf branches. */
const VALUE_VALIDATIONS = [
  'pattern',
  'minLength',
  'maxLength',
  'format',
  'enum',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'required',
  'not',
  'anyOf',
  'oneOf',
  'allOf',
] as const;
/** Keys of z.toJSONSchema output that carry no meaning for the API server. */
const IGNORED = ['$schema', 'title', 'examples', 'readOnly', 'writeOnly', 'id', '$id'] as const;

/** zod's default bounds of `.int()` (safe integers): not a constraint worth putting in a CRD. */
const SAFE_INTEGER_BOUND = Number.MAX_SAFE_INTEGER;

/** JSON Schema formats and the OpenAPI format the API server knows for them (undefined: drop it, the pattern stays). */
const FORMATS: Readonly<Record<string, string | undefined>> = {
  ipv4: 'ipv4',
  ipv6: 'ipv6',
  cidrv4: 'cidr',
  cidrv6: 'cidr',
  'date-time': 'date-time',
  uuid: 'uuid',
  email: 'email',
  mac: 'mac',
};

/** Converts `schema` (z.toJSONSchema output, draft 2020-12) to a structural schema. Throws {@link StructuralSchemaError}. */
export function toStructuralSchema(schema: JsonSchema): JsonSchema {
  return ordered(convert(inlineDefinitions(schema), ''));
}

/**
 * `schema` with every `$ref` to its own `$defs` replaced by the definition: zod puts a schema
 * that carries an `id` (`.meta({id})`, as the routing intent's named types do) into `$defs`, and a
 * structural schema must be self-contained. A key the referring node sets too (a narrower
 * pattern, say) keeps both: the definition's joins `allOf`; the node's own description wins.
 */
function inlineDefinitions(schema: JsonSchema): JsonSchema {
  const { $defs, ...root } = schema;
  const defs = ($defs ?? {}) as Record<string, JsonSchema>;
  const expanding: string[] = [];
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (value === null || typeof value !== 'object') return value;
    const { $ref, ...rest } = value as JsonSchema;
    const node = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, visit(v)])) as JsonSchema;
    if ($ref === undefined) return node;
    const name = typeof $ref === 'string' ? /^#\/\$defs\/(.+)$/.exec($ref)?.[1] : undefined;
    const def = name === undefined ? undefined : defs[name];
    if (name === undefined || def === undefined || expanding.includes(name)) {
      throw new StructuralSchemaError('', `$ref ${String($ref)} cannot be inlined`);
    }
    expanding.push(name);
    const inlined = visit(def) as JsonSchema;
    expanding.pop();
    const merged: JsonSchema = { ...node };
    const joined: JsonSchema[] = [];
    for (const [key, v] of Object.entries(inlined)) {
      if (!(key in merged)) merged[key] = v;
      else if (key !== 'description' && key !== 'title') joined.push({ [key]: v });
    }
    if (joined.length > 0) merged.allOf = [...((merged.allOf as JsonSchema[] | undefined) ?? []), ...joined];
    return merged;
  };
  return visit(root) as JsonSchema;
}

/** The order keys are written in: what a node is, then its constraints, then its children and rules. */
const KEY_ORDER = [
  'description',
  'type',
  'format',
  'default',
  'nullable',
  'enum',
  ...VALUE_VALIDATIONS.filter(
    (k) => !['format', 'enum', 'required', 'not', 'anyOf', 'oneOf', 'allOf'].includes(k),
  ),
  'properties',
  'required',
  'items',
  'additionalProperties',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
];

/** `node` with its keys in {@link KEY_ORDER} (Kubernetes extensions last), recursively: stable, readable YAML. */
function ordered(node: JsonSchema): JsonSchema {
  const rank = (k: string) => (KEY_ORDER.includes(k) ? KEY_ORDER.indexOf(k) : KEY_ORDER.length);
  const out: JsonSchema = {};
  for (const key of Object.keys(node).sort((a, b) => rank(a) - rank(b))) {
    const value = node[key];
    if (key === 'properties' || (key === 'additionalProperties' && typeof value === 'object')) {
      out[key] =
        key === 'properties'
          ? Object.fromEntries(
              Object.entries(value as Record<string, JsonSchema>).map(([k, v]) => [k, ordered(v)]),
            )
          : ordered(value as JsonSchema);
    } else if (key === 'items' || key === 'not') {
      out[key] = ordered(value as JsonSchema);
    } else if (key === 'anyOf' || key === 'oneOf' || key === 'allOf') {
      out[key] = (value as JsonSchema[]).map(ordered);
    } else {
      out[key] = value;
    }
  }
  return out;
}

function convert(node: JsonSchema, path: string): JsonSchema {
  for (const key of Object.keys(node)) {
    if (key === '$ref' || key === '$defs' || key === 'definitions') {
      throw new StructuralSchemaError(
        path,
        `${key} is not allowed in a structural schema (inline the schema)`,
      );
    }
  }
  const junctor = 'anyOf' in node ? 'anyOf' : 'oneOf' in node ? 'oneOf' : undefined;
  if (junctor !== undefined) return convertUnion(node, junctor, path);
  if ('allOf' in node) throw new StructuralSchemaError(path, 'allOf (z.intersection) is not supported');
  if (Array.isArray(node.type)) {
    // z.union of plain primitives: `type: [string, boolean]`, nullable as `[..., null]`.
    const types = (node.type as string[]).filter((t) => t !== 'null');
    if (types.length !== 1) {
      throw new StructuralSchemaError(
        path,
        `a union of different types (${types.join(', ')}) cannot be structural`,
      );
    }
    return {
      ...convert({ ...node, type: types[0] }, path),
      ...(types.length < node.type.length ? { nullable: true } : {}),
    };
  }
  const type = node.type;
  if (type === undefined) {
    if (Object.keys(node).every((k) => isAnnotation(k) || IGNORED.includes(k as never))) {
      // z.unknown()/z.any(): any JSON value, kept as it is.
      return {
        ...Object.fromEntries(Object.entries(node).filter(([k]) => isAnnotation(k))),
        'x-kubernetes-preserve-unknown-fields': true,
      };
    }
    throw new StructuralSchemaError(path, 'a schema without a type');
  }
  if (typeof type !== 'string') throw new StructuralSchemaError(path, 'type must be one type name');
  const out: JsonSchema = { type };
  const extraRules: JsonSchema[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'type' || IGNORED.includes(key as never)) continue;
    if (isAnnotation(key)) {
      out[key] = value;
    } else if (key === 'const') {
      out.enum = [value];
    } else if (key === 'format') {
      if (typeof value !== 'string' || !(value in FORMATS)) {
        throw new StructuralSchemaError(path, `unknown format ${JSON.stringify(value)}`);
      }
      const format = FORMATS[value];
      if (format !== undefined) out.format = format;
    } else if ((key === 'minimum' || key === 'maximum') && Math.abs(value as number) === SAFE_INTEGER_BOUND) {
      continue;
    } else if (type === 'object' && key === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, JsonSchema>).map(([name, child]) => [
          name,
          convert(child, `${path}.properties.${name}`),
        ]),
      );
    } else if (type === 'object' && key === 'additionalProperties') {
      if (value === false) continue; // unknown fields are pruned by the API server
      const child = value as JsonSchema;
      if (Object.keys(child).length === 0) out['x-kubernetes-preserve-unknown-fields'] = true;
      else out.additionalProperties = convert(child, `${path}.additionalProperties`);
    } else if (type === 'object' && key === 'propertyNames') {
      extraRules.push(...keyRules(value as JsonSchema, `${path}.propertyNames`));
    } else if (type === 'array' && key === 'items') {
      out.items = convert(value as JsonSchema, `${path}.items`);
    } else if (type === 'array' && key === 'prefixItems') {
      throw new StructuralSchemaError(path, 'tuples are not supported');
    } else if (VALUE_VALIDATIONS.includes(key as never)) {
      out[key] = value;
    } else {
      throw new StructuralSchemaError(path, `unsupported keyword ${key}`);
    }
  }
  if (type === 'object' && out.properties !== undefined && out.additionalProperties !== undefined) {
    throw new StructuralSchemaError(path, 'an object with both properties and additionalProperties');
  }
  if (type === 'object' && out.properties === undefined && out.additionalProperties === undefined) {
    out['x-kubernetes-preserve-unknown-fields'] = true;
  }
  if (extraRules.length > 0) {
    out['x-kubernetes-validations'] = [
      ...((out['x-kubernetes-validations'] as JsonSchema[]) ?? []),
      ...extraRules,
    ];
  }
  return out;
}

/**
 * Map keys constrained by zod (z.record(KeySchema, ...)): OpenAPI has no propertyNames, so their
 * length limits become CEL. Key patterns do not: the API server knows no length of a map key, so
 * it would estimate `matches` on every key as a regular expression over a request-sized string
 * and refuse the CRD as too expensive. Key patterns stay zod's (docs/api.md lists them).
 */
function keyRules(keys: JsonSchema, path: string): JsonSchema[] {
  const rules: JsonSchema[] = [];
  for (const [key, value] of Object.entries(keys)) {
    if ((key === 'type' && value === 'string') || key === 'pattern') continue;
    if (key === 'maxLength') {
      rules.push({
        rule: `self.all(k, size(k) <= ${value as number})`,
        message: `keys must be at most ${value as number} characters`,
      });
    } else if (key === 'minLength') {
      rules.push({
        rule: `self.all(k, size(k) >= ${value as number})`,
        message: `keys must be at least ${value as number} characters`,
      });
    } else if (!IGNORED.includes(key as never) && !isAnnotation(key)) {
      throw new StructuralSchemaError(path, `unsupported key constraint ${key}`);
    }
  }
  return rules;
}

function convertUnion(node: JsonSchema, junctor: 'anyOf' | 'oneOf', path: string): JsonSchema {
  const own = Object.fromEntries(
    Object.entries(node).filter(([k]) => k !== junctor && !IGNORED.includes(k as never)),
  );
  // Value validations beside the union (zod metadata: a maxLength that bounds the API server's
  // estimate of CEL cost) apply to every branch: they stay on the merged schema.
  for (const key of Object.keys(own)) {
    if (!isAnnotation(key) && !VALUE_VALIDATIONS.includes(key as never)) {
      throw new StructuralSchemaError(path, `unsupported keyword ${key} beside ${junctor}`);
    }
  }
  const raw = node[junctor] as JsonSchema[];
  const nullable = raw.some((b) => b.type === 'null');
  const branches = raw.filter((b) => b.type !== 'null').map((b, i) => convert(b, `${path}.${junctor}[${i}]`));
  const extra: JsonSchema = { ...own, ...(nullable ? { nullable: true } : {}) };
  if (branches.length === 0) throw new StructuralSchemaError(path, 'a union of nothing but null');
  if (branches.length === 1) return mergeOwn(branches[0] as JsonSchema, extra);
  const types = [...new Set(branches.map((b) => b.type as string | undefined))].sort();
  if (types.length === 2 && types[0] === 'integer' && types[1] === 'string') {
    if (branches.some((b) => Object.keys(valueValidations(b)).length > 0)) {
      throw new StructuralSchemaError(
        path,
        'an integer-or-string union with constraints on either side cannot be structural (x-kubernetes-int-or-string takes none)',
      );
    }
    return { ...extra, 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
  }
  if (types.length !== 1 || types[0] === undefined) {
    throw new StructuralSchemaError(
      path,
      `a union of different types (${types.join(', ')}) cannot be structural`,
    );
  }
  const type = types[0];
  if (type === 'object') return mergeObjectBranches(branches, junctor, extra, path);
  if (type === 'array') throw new StructuralSchemaError(path, 'a union of arrays is not supported');
  if (branches.some((b) => b['x-kubernetes-validations'] !== undefined)) {
    throw new StructuralSchemaError(path, 'CEL rules on one branch of a union are not supported');
  }
  const inner = branches.map(valueValidations);
  // A branch without constraints accepts every value of the type: the union constrains nothing.
  if (inner.some((b) => Object.keys(b).length === 0)) {
    if (junctor === 'oneOf') throw new StructuralSchemaError(path, 'oneOf with an unconstrained branch');
    return { type, ...extra };
  }
  return { type, ...extra, [junctor]: inner };
}

/**
 * Object branches become one object with every branch's properties (the structural part), and the
 * junctor keeps what told the branches apart: the properties each requires, and (for strict zod
 * objects) that it has none of the properties only other branches know.
 */
function mergeObjectBranches(
  branches: JsonSchema[],
  junctor: 'anyOf' | 'oneOf',
  extra: JsonSchema,
  path: string,
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const branch of branches) {
    if (branch.additionalProperties !== undefined || branch['x-kubernetes-preserve-unknown-fields']) {
      throw new StructuralSchemaError(path, 'a union of maps or loose objects is not supported');
    }
    if (branch['x-kubernetes-validations'] !== undefined) {
      throw new StructuralSchemaError(path, 'CEL rules on one branch of a union are not supported');
    }
    for (const [name, child] of Object.entries((branch.properties as Record<string, JsonSchema>) ?? {})) {
      const seen = properties[name];
      if (seen !== undefined && JSON.stringify(seen) !== JSON.stringify(child)) {
        throw new StructuralSchemaError(
          `${path}.properties.${name}`,
          'branches give this property different schemas',
        );
      }
      properties[name] = child;
    }
  }
  const requiredOf = (b: JsonSchema) => (b.required as string[] | undefined) ?? [];
  const common = requiredOf(branches[0] as JsonSchema).filter((r) =>
    branches.every((b) => requiredOf(b).includes(r)),
  );
  const alternatives = branches.map((b) => {
    const own = Object.keys((b.properties as object | undefined) ?? {});
    const foreign = Object.keys(properties).filter((p) => !own.includes(p));
    const required = requiredOf(b).filter((r) => !common.includes(r));
    return {
      ...(required.length > 0 ? { required } : {}),
      ...(foreign.length > 0 ? { not: { anyOf: foreign.map((p) => ({ required: [p] })) } } : {}),
      ...valueValidationsExcept(b, ['required']),
    };
  });
  return {
    type: 'object',
    ...extra,
    properties,
    ...(common.length > 0 ? { required: common } : {}),
    [junctor]: alternatives,
  };
}

function mergeOwn(schema: JsonSchema, extra: JsonSchema): JsonSchema {
  const rules = [
    ...((schema['x-kubernetes-validations'] as unknown[]) ?? []),
    ...((extra['x-kubernetes-validations'] as unknown[]) ?? []),
  ];
  return { ...schema, ...extra, ...(rules.length > 0 ? { 'x-kubernetes-validations': rules } : {}) };
}

function valueValidations(schema: JsonSchema): JsonSchema {
  return valueValidationsExcept(schema, []);
}

function valueValidationsExcept(schema: JsonSchema, except: readonly string[]): JsonSchema {
  return Object.fromEntries(
    Object.entries(schema).filter(([k]) => VALUE_VALIDATIONS.includes(k as never) && !except.includes(k)),
  );
}

function isAnnotation(key: string): boolean {
  return ANNOTATIONS.includes(key as never) || KUBERNETES_EXTENSIONS.includes(key as never);
}
