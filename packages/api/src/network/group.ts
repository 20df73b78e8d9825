import type { z } from 'zod';

/** The API group of fabrik's kinds. */
export const GROUP = 'network.fabrik.dev';
/** The only served (and stored) version. */
export const VERSION = 'v1alpha1';
/** `apiVersion` of every fabrik object. */
export const API_VERSION = `${GROUP}/${VERSION}` as const;

/** A column of `kubectl get` (a CRD's additionalPrinterColumns entry). */
export interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  readonly jsonPath: string;
  readonly description?: string;
  readonly priority?: number;
}

/**
 * Everything the API server needs to serve a kind: its names (the REST path is
 * `/apis/<group>/<version>/<plural>`), scope, the zod schema of a whole object (CRDs are generated
 * from it), printer columns and whether `status` is a subresource.
 */
export interface ResourceKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly scope: 'Cluster' | 'Namespaced';
  readonly schema: z.ZodObject;
  readonly printerColumns: readonly PrinterColumn[];
  readonly statusSubresource: boolean;
  /** One sentence for the CRD's description (`kubectl explain`). */
  readonly description: string;
}
