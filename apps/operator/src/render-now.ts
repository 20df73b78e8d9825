import type { KubeConfig } from '@kubernetes/client-node';
import { NODE_NETWORK_CONFIG_RESOURCE, type NodeNetworkConfig } from '@fabrik/api';
import { NODES, NodeObject, apiVersionOf, customObjects } from '@fabrik/kube';
import type { IntentObject } from '@fabrik/agent-runtime';
import { INTENT_KINDS, heldIdentities, nodeInputOf, type ExistingConfig } from './cluster-informers.js';
import type { OperatorConfig } from './config.js';
import { nodeNetworkConfigOf, renderCluster } from './render.js';

// `fabrik-operator render --node NAME`: one list of everything, then the same rendering as `run`
// (identities for every node at once, since one node's allocation depends on the others').

const asIs = (raw: unknown) => raw as { metadata: { name: string } };

export async function renderNodeNow(
  kc: KubeConfig,
  config: OperatorConfig,
  nodeName: string,
): Promise<NodeNetworkConfig | undefined> {
  const [nodes, configs, ...lists] = await Promise.all([
    customObjects(kc, NODES, NodeObject).list(),
    customObjects(kc, NODE_NETWORK_CONFIG_RESOURCE, (raw: unknown) => raw as ExistingConfig).list(),
    ...INTENT_KINDS.map((resource) => customObjects(kc, resource, asIs).list()),
  ]);
  const objects = INTENT_KINDS.flatMap((resource, i) =>
    lists[i]!.items.map(
      (o) => ({ ...o, apiVersion: apiVersionOf(resource), kind: resource.kind }) as unknown as IntentObject,
    ),
  );
  const rendered = renderCluster(config, {
    nodes: nodes.items.map(nodeInputOf),
    objects,
    held: heldIdentities(configs.items),
  }).find((r) => r.name === nodeName);
  return rendered && nodeNetworkConfigOf(rendered);
}
