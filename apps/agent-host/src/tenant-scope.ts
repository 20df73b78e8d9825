import { matchesLabelSelector, type LabelSelector, type Labels } from '@fabrik/kube';

// Tenant scoping (issue 33): anyone who may create a NetworkAttachmentDefinition in a namespace
// chooses its VLAN, trunk and pools, so the Layer2Networks and IPPools say which namespaces may
// attach (spec.namespaceSelector over the Namespace's labels; absent: every namespace) and which
// networks a trunk may carry (Layer2Network spec.allowTrunks). This is the decision alone, pure;
// agent-host makes it on its CNI socket before ADD creates anything (admission.ts).

/** A Layer2Network as far as the decision needs it. */
export interface ScopedNetwork {
  readonly name: string;
  readonly vlan: number;
  readonly namespaceSelector?: LabelSelector;
  readonly allowTrunks?: boolean;
}

/** An IPPool as far as the decision needs it. */
export interface ScopedPool {
  readonly name: string;
  readonly namespaceSelector?: LabelSelector;
}

/** What one ADD asks for. */
export interface AttachmentScope {
  /** The network config's name (the NAD's), for messages. */
  readonly networkConfig: string;
  /** CNI_ARGS K8S_POD_NAMESPACE; undefined when the runtime gave none. */
  readonly namespace: string | undefined;
  /** The Namespace's labels; undefined when the Namespace is not known (yet). */
  readonly namespaceLabels: Labels | undefined;
  /** The access (or native) VLAN of the port; 0: untagged. */
  readonly vlan: number;
  /** The VLANs of a trunk port. */
  readonly trunks: readonly number[];
  /** The IPPools of fabrik-ipam the config names. */
  readonly pools: readonly ScopedPool[];
}

/** Why the attachment is refused; `retry` when it may be admitted once the Namespace is known. */
export interface Refusal {
  readonly message: string;
  readonly retry: boolean;
}

/**
 * Refuses an attachment when a Layer2Network on its VLAN, or one of its pools, does not select the
 * Pod's namespace, or when its trunk carries a VLAN that is no Layer2Network's or whose network
 * does not allow trunks. A VLAN that is no Layer2Network's stays open to access ports, as before
 * (a VLAN of the node's own bridges, not the fabric's). Undefined: admitted.
 */
export function attachmentRefusal(
  scope: AttachmentScope,
  networks: readonly ScopedNetwork[],
): Refusal | undefined {
  const prefix = `network config ${scope.networkConfig}`;
  const networksOn = (vlan: number) => networks.filter((n) => n.vlan === vlan);
  const selected = [
    ...(scope.vlan > 0 ? networksOn(scope.vlan).map((n) => ({ kind: 'Layer2Network', ...n })) : []),
    ...scope.trunks.flatMap((vid) => networksOn(vid).map((n) => ({ kind: 'Layer2Network', ...n }))),
    ...scope.pools.map((p) => ({ kind: 'IPPool', ...p })),
  ];

  for (const vid of scope.trunks) {
    const on = networksOn(vid);
    if (on.length === 0)
      return refuse(
        `${prefix}: trunk VLAN ${vid} is no Layer2Network's: a trunk carries only networks that allow trunks`,
      );
    const closed = on.find((n) => n.allowTrunks !== true);
    if (closed)
      return refuse(
        `${prefix}: Layer2Network ${closed.name} (VLAN ${vid}) does not allow trunks (spec.allowTrunks)`,
      );
  }

  const scoped = selected.filter((s) => s.namespaceSelector !== undefined);
  if (scoped.length === 0) return undefined;
  const first = scoped[0] as (typeof scoped)[number];
  if (scope.namespace === undefined)
    return refuse(
      `${prefix}: ${first.kind} ${first.name} allows only selected namespaces (spec.namespaceSelector) and the runtime gave no K8S_POD_NAMESPACE`,
    );
  if (scope.namespaceLabels === undefined)
    return {
      message: `${prefix}: Namespace ${scope.namespace} is not known to agent-host yet; ${first.kind} ${first.name} allows only selected namespaces`,
      retry: true,
    };
  const labels = scope.namespaceLabels;
  const denied = scoped.find(
    (s) => !matchesLabelSelector(s.namespaceSelector, labels, `${s.kind} ${s.name} spec.namespaceSelector`),
  );
  if (denied === undefined) return undefined;
  const vlan = 'vlan' in denied ? ` (VLAN ${denied.vlan})` : '';
  return refuse(
    `${prefix}: ${denied.kind} ${denied.name}${vlan} does not allow Pods of namespace ${scope.namespace} (spec.namespaceSelector)`,
  );
}

function refuse(message: string): Refusal {
  return { message, retry: false };
}
