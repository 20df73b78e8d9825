// The contract between fabrik-ovs and everything that reads the OVS rows it creates (GC, the
// agents, the lab scenarios): which external_ids a Pod attachment's Port row carries.

/** external_ids keys on the OVS Port rows fabrik-ovs creates for Pod attachments. */
export const PortIds = {
  /** The creator's name (netcore's ownership mark): {@link CNI_OVS_OWNER} on these rows. */
  owner: 'fabrik-owner',
  /** The CNI network name (`name` of the network config). */
  network: 'fabrik-cni-network',
  /** CNI_CONTAINERID of the attachment. */
  containerId: 'fabrik-cni-container-id',
  /** CNI_IFNAME of the attachment (the Pod's interface). */
  ifname: 'fabrik-cni-ifname',
  /** CNI_NETNS of the attachment. */
  netns: 'fabrik-cni-netns',
  /** K8S_POD_NAME from CNI_ARGS, when given. */
  podName: 'k8s-pod-name',
  /** K8S_POD_NAMESPACE from CNI_ARGS, when given. */
  podNamespace: 'k8s-pod-namespace',
} as const;

/** Value of `fabrik-owner` on every OVS row fabrik-ovs creates. */
export const CNI_OVS_OWNER = 'cni-ovs';
