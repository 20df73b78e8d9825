/** fabrik-ovs's own error codes (the spec leaves 100 and up to plugins). */
export const PluginErrorCode = {
  /** OVS rejected the interface (its `error` column is set) or gave no ofport in time. */
  ovsInterface: 100,
  /** CHECK found the attachment different from prevResult or from the config. */
  checkFailed: 101,
  /**
   * ADD of an attachment that exists: an earlier ADD of the same network, container id and ifname
   * was not deleted. Nothing was changed; DEL it first (the spec forbids ADD twice without DEL).
   */
  attachmentExists: 102,
  /**
   * The Pod's namespace may not attach: a Layer2Network on the config's VLAN or trunk, or one of its
   * IPPools, does not select it (spec.namespaceSelector), or the trunk carries a VLAN whose network
   * does not allow trunks. Nothing was created.
   */
  attachmentNotAllowed: 103,
} as const;
