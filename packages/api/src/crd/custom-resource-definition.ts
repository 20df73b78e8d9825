import { z } from 'zod';
import { ObjectName } from '../kube/meta.js';
import type { ResourceKind } from '../network/group.js';
import { toStructuralSchema, type JsonSchema } from './structural.js';

/** An apiextensions.k8s.io/v1 CustomResourceDefinition, as far as fabrik writes one. */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames: string[];
      categories?: string[];
    };
    scope: 'Cluster' | 'Namespaced';
    versions: {
      name: string;
      served: true;
      storage: true;
      subresources?: { status: Record<string, never> };
      additionalPrinterColumns?: ResourceKind['printerColumns'][number][];
      schema: { openAPIV3Schema: JsonSchema };
    }[];
  };
}

/** The structural schema (openAPIV3Schema) of a kind's objects, from its zod schema. */
export function openApiSchemaOf(resource: ResourceKind): JsonSchema {
  const converted = toStructuralSchema(
    z.toJSONSchema(resource.schema, { io: 'input', unrepresentable: 'throw' }) as JsonSchema,
  );
  const properties = { ...(converted.properties as Record<string, JsonSchema>) };
  // The API server owns apiVersion, kind and metadata; a CRD may only narrow metadata.name.
  properties.apiVersion = { type: 'string' };
  properties.kind = { type: 'string' };
  const name = (properties.metadata?.properties as Record<string, JsonSchema> | undefined)?.name;
  properties.metadata =
    name !== undefined && JSON.stringify(name) !== JSON.stringify(defaultNameSchema())
      ? { type: 'object', properties: { name } }
      : { type: 'object' };
  const required = ((converted.required as string[] | undefined) ?? []).filter((r) => r === 'spec');
  return {
    description: resource.description,
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    ...(converted['x-kubernetes-validations'] !== undefined
      ? { 'x-kubernetes-validations': converted['x-kubernetes-validations'] }
      : {}),
  };
}

function defaultNameSchema(): JsonSchema {
  return toStructuralSchema(z.toJSONSchema(ObjectName, { io: 'input' }) as JsonSchema);
}

/** The CustomResourceDefinition of `resource` (one served and stored version). */
export function customResourceDefinition(resource: ResourceKind): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${resource.plural}.${resource.group}`,
      labels: { 'app.kubernetes.io/part-of': 'fabrik' },
    },
    spec: {
      group: resource.group,
      names: {
        kind: resource.kind,
        listKind: resource.listKind,
        plural: resource.plural,
        singular: resource.singular,
        shortNames: [...resource.shortNames],
        ...(resource.categories.length > 0 ? { categories: [...resource.categories] } : {}),
      },
      scope: resource.scope,
      versions: [
        {
          name: resource.version,
          served: true,
          storage: true,
          ...(resource.statusSubresource ? { subresources: { status: {} } } : {}),
          ...(resource.printerColumns.length > 0
            ? { additionalPrinterColumns: resource.printerColumns.map((c) => ({ ...c })) }
            : {}),
          schema: { openAPIV3Schema: openApiSchemaOf(resource) },
        },
      ],
    },
  };
}
