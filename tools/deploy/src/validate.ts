import * as k8s from '@kubernetes/client-node';
import type { KubeObject } from './render.js';

// Two independent readings of the Kubernetes OpenAPI schemas, so that a manifest is checked as the
// API server checks it with fieldValidation=Strict:
// - kubernetes-models (JSON-schema validators generated from Kubernetes 1.27's OpenAPI): types,
//   required fields, enums and formats; its schemas allow unknown fields, as the OpenAPI does;
// - the typed models of @kubernetes/client-node (generated from the same OpenAPI): every field name
//   of every nested object must be one the model knows, so a misspelt `livenesProbe` fails.

interface Attribute {
  readonly baseName: string;
  readonly type: string;
}
type ModelClass = { getAttributeTypeMap(): Attribute[] };

const models = k8s as unknown as Record<string, ModelClass | undefined>;

/** client-node's model class name of a kind: apps/v1 DaemonSet -> V1DaemonSet. */
function modelName(apiVersion: string): (kind: string) => string {
  const version = apiVersion.split('/').at(-1) ?? '';
  return (kind) => `${version.charAt(0).toUpperCase()}${version.slice(1)}${kind}`;
}

const MAP_TYPE = /^\{ \[key: string\]: (.+); \}$/;
const ARRAY_TYPE = /^Array<(.+)>$/;

/** Field names the model does not know, as paths (`spec.template.spec.containers[0].livenesProbe`). */
function unknownFields(value: unknown, type: string, path: string, out: string[]): void {
  if (value === null || value === undefined) return;
  const array = ARRAY_TYPE.exec(type);
  if (array) {
    if (Array.isArray(value)) value.forEach((v, i) => unknownFields(v, array[1]!, `${path}[${i}]`, out));
    return;
  }
  const map = MAP_TYPE.exec(type);
  if (map) {
    if (typeof value === 'object')
      for (const [k, v] of Object.entries(value)) unknownFields(v, map[1]!, `${path}.${k}`, out);
    return;
  }
  const model = models[type];
  if (typeof model?.getAttributeTypeMap !== 'function' || typeof value !== 'object') return;
  const attributes = new Map(model.getAttributeTypeMap().map((a) => [a.baseName, a.type]));
  for (const [key, v] of Object.entries(value)) {
    const attributeType = attributes.get(key);
    const at = path ? `${path}.${key}` : key;
    if (attributeType === undefined) out.push(`${at}: unknown field`);
    else unknownFields(v, attributeType, at, out);
  }
}

/** What the OpenAPI schemas refuse in `o` (empty: valid). Kinds neither reading knows are refused. */
export async function validateObject(o: KubeObject): Promise<string[]> {
  const problems: string[] = [];
  const name = modelName(o.apiVersion)(o.kind);
  if (models[name] === undefined) problems.push(`${o.apiVersion} ${o.kind}: no client-node model ${name}`);
  else unknownFields(o, name, '', problems);
  let group: Record<string, unknown>;
  try {
    group = (await import(/* @vite-ignore */ `kubernetes-models/${o.apiVersion}`)) as Record<string, unknown>;
  } catch {
    return [...problems, `${o.apiVersion}: no kubernetes-models group version`];
  }
  const Model = group[o.kind] as (new (data: unknown) => { validate(): void }) | undefined;
  if (Model === undefined) return [...problems, `${o.apiVersion} ${o.kind}: no kubernetes-models kind`];
  try {
    new Model(o).validate();
  } catch (e) {
    problems.push((e as Error).message);
  }
  return problems;
}
