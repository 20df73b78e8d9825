// Test-only: the real kube-apiserver (@fabrik/testkit) with a small custom resource of its own, so the
// tests of this generic package do not depend on fabrik's CRDs, and a Node whose kubelet is Ready.
import type { KubeConfig } from '@kubernetes/client-node';
import { startKubeApiServer, type KubeApiServer, type StartKubeApiServerOptions } from '@fabrik/testkit';
import { z } from 'zod';
import { loadKubeConfig } from '../config.js';
import { customObjects, type CustomObjects } from '../custom-objects.js';
import { formatKubeTime } from '../conditions.js';
import type { KubeLogger } from '../logger.js';
import { NodeObject } from '../node.js';
import { NODES, ObjectMeta, type GroupVersionResource } from '../resource.js';

export const WIDGETS: GroupVersionResource = { group: 'test.fabrik.dev', version: 'v1', plural: 'widgets' };

/** A Widget; `parse` refuses colors other than red and blue (the server accepts any string). */
export const Widget = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: ObjectMeta,
  spec: z.looseObject({ size: z.number().optional(), color: z.enum(['red', 'blue']).optional() }).optional(),
  status: z.record(z.string(), z.unknown()).optional(),
});
export type Widget = z.infer<typeof Widget>;

const RawWidget = z.looseObject({ metadata: ObjectMeta });

const WIDGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.test.fabrik.dev' },
  spec: {
    group: 'test.fabrik.dev',
    scope: 'Cluster',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  size: { type: 'integer', minimum: 0, maximum: 10 },
                  color: { type: 'string' },
                },
              },
              status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
  },
};

/** The kubelet's conditions on the test Node: every agent write must leave them as they are. */
export const KUBELET_READY = {
  type: 'Ready',
  status: 'True',
  reason: 'KubeletReady',
  message: 'kubelet is posting ready status',
  lastHeartbeatTime: '2026-11-30T09:00:00Z',
  lastTransitionTime: '2026-11-30T08:00:00Z',
};

export interface TestCluster {
  readonly server: KubeApiServer;
  readonly kc: KubeConfig;
  readonly widgets: CustomObjects<Widget>;
  /** Widgets as the server has them, for objects `Widget` refuses. */
  readonly rawWidgets: CustomObjects<z.infer<typeof RawWidget>>;
  readonly nodes: CustomObjects<NodeObject>;
}

export async function startTestCluster(options: StartKubeApiServerOptions = {}): Promise<TestCluster> {
  const server = await startKubeApiServer({ crdDirs: [], ...options });
  const { kc } = loadKubeConfig({ kubeconfig: server.kubeconfigPath });
  const crds = customObjects(
    kc,
    { group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions' },
    z.looseObject({ metadata: ObjectMeta }),
  );
  await crds.create(WIDGET_CRD);
  // The real server serves a CRD's objects only once it is Established (a moment after create).
  await server.kubectl(
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    `crd/${WIDGET_CRD.metadata.name}`,
  );
  const nodes = customObjects(kc, NODES, NodeObject);
  return {
    server,
    kc,
    widgets: customObjects(kc, WIDGETS, Widget),
    rawWidgets: customObjects(kc, WIDGETS, RawWidget),
    nodes,
  };
}

/**
 * Creates a Node and gives it the kubelet's Ready condition through the status subresource. The
 * admission's `node.kubernetes.io/not-ready` taint of a new Node is removed, as the node lifecycle
 * controller (which the test control plane does not run) does once the Node is Ready.
 */
export async function createNode(
  cluster: TestCluster,
  name: string,
  labels: Record<string, string> = {},
): Promise<NodeObject> {
  await cluster.nodes.create({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels } });
  await cluster.nodes.patchStatus(name, {
    status: { conditions: [{ ...KUBELET_READY, lastHeartbeatTime: formatKubeTime(new Date()) }] },
  });
  return cluster.nodes.patch(name, { spec: { taints: null } });
}

/** A Widget as the server takes it (any color: `parse` is stricter). */
export const widget = (name: string, labels: Record<string, string>, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'test.fabrik.dev/v1',
  kind: 'Widget',
  metadata: { name, labels },
  spec,
});

/** A logger that keeps what it is given, for assertions. */
export function memoryLogger(): KubeLogger & { lines: { level: string; msg: string; obj: object }[] } {
  const lines: { level: string; msg: string; obj: object }[] = [];
  const at =
    (level: string) =>
    (obj: object, msg: string): void => {
      lines.push({ level, msg, obj });
    };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
