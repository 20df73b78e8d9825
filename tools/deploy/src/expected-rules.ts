// What each fabrik ServiceAccount is expected to be granted by deploy/, one rule per line, in the
// form the RBAC test prints: `<scope> <apiGroup> <resource> <verb>`. Any rule the rendered RBAC
// grants beyond these, or lacks, shows as a failing diff (tools/deploy/src/rbac.host.test.ts).
// Derived from the calls the code makes:
//   - the Kubernetes intent source (@fabrik/agent-runtime over @fabrik/kube startInformer,
//     startNodeInformer): list + watch of its kinds (VRFs, Layer2Networks, BGPPeerings), list +
//     watch of its Node by field selector, list + watch of the Secrets of its secretNamespace
//     (fabrik-system: BGPPeerings' passwords);
//   - the node status sink: createStatusWriter (get, create when missing, merge patch of /status),
//     nodeOwnerReference (get node), patchNodeCondition (get node, patch nodes/status),
//     removeNodeTaint (get node, patch node);
//   - the event recorder: create, and patch to count a repeated Event, in namespace default;
//   - fabrik-ipam (@fabrik/ippool): get of an IPPool, update of its /status; made by the
//     fabrik-ipam binary (fabrik-cni's token) and in-process by agent-host's CNI socket;
//   - agent-host's tenant scoping on its CNI socket: list + watch of Namespaces (their labels).

import type { GrantedRule } from '@fabrik/testkit';

/** A granted permission flattened to one verb on one resource; scope `*` is cluster-wide. */
export type Grant = string;

export function grant(scope: string, apiGroup: string, resource: string, verb: string): Grant {
  return `${scope} ${apiGroup || 'core'} ${resource} ${verb}`;
}

const ipam = (): Grant[] => [
  grant('*', 'network.fabrik.dev', 'ippools', 'get'),
  grant('*', 'network.fabrik.dev', 'ippools/status', 'update'),
];

const nodeAgent = (): Grant[] => [
  grant('*', 'network.fabrik.dev', 'vrfs', 'list'),
  grant('*', 'network.fabrik.dev', 'vrfs', 'watch'),
  grant('*', 'network.fabrik.dev', 'layer2networks', 'list'),
  grant('*', 'network.fabrik.dev', 'layer2networks', 'watch'),
  grant('*', 'network.fabrik.dev', 'bgppeerings', 'list'),
  grant('*', 'network.fabrik.dev', 'bgppeerings', 'watch'),
  grant('fabrik-system', '', 'secrets', 'list'),
  grant('fabrik-system', '', 'secrets', 'watch'),
  grant('*', 'network.fabrik.dev', 'nodenetworkstatuses', 'get'),
  grant('*', 'network.fabrik.dev', 'nodenetworkstatuses', 'create'),
  grant('*', 'network.fabrik.dev', 'nodenetworkstatuses/status', 'patch'),
  grant('*', '', 'nodes', 'get'),
  grant('*', '', 'nodes', 'list'),
  grant('*', '', 'nodes', 'watch'),
  grant('*', '', 'nodes', 'patch'),
  grant('*', '', 'nodes/status', 'patch'),
  grant('default', '', 'events', 'create'),
  grant('default', '', 'events', 'patch'),
];

/** ServiceAccount (namespace fabrik-system) -> expected grants, per kustomization. */
export const EXPECTED_GRANTS: Record<string, Record<string, Grant[]>> = {
  'deploy/base': {
    'fabrik-agent-host': [
      ...nodeAgent(),
      ...ipam(),
      grant('*', '', 'namespaces', 'list'),
      grant('*', '', 'namespaces', 'watch'),
    ],
    // No token, no role: agent-netns gets its intent from agent-host's relay.
    'fabrik-hbr': [],
    'fabrik-cni': ipam(),
  },
  'deploy/overlays/netns-kubernetes-source': {
    // agent-netns watching the API itself: what agent-host's relay does for it otherwise.
    'fabrik-hbr': nodeAgent(),
  },
};

/** Flattens the rules kube-apiserver grants (testkit's `rulesFor`) into sorted grants. */
export function flattenRules(rules: readonly GrantedRule[]): Grant[] {
  const out = new Set<Grant>();
  for (const r of rules) {
    for (const g of r.apiGroups)
      for (const res of r.resources)
        for (const v of r.verbs) {
          const names = r.resourceNames.length > 0 ? `[${r.resourceNames.join(',')}]` : '';
          out.add(grant(r.namespace ?? '*', g, `${res}${names}`, v));
        }
    for (const url of r.nonResourceURLs) for (const v of r.verbs) out.add(`* url ${url} ${v}`);
  }
  return [...out].sort();
}
