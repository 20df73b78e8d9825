import { createHash, randomBytes } from 'node:crypto';
import { CNI_OVS_OWNER } from '@fabrik/api';

/** Prefix of every host-side veth fabrik-ovs creates (and the only ones GC may delete). */
export const HOST_VETH_PREFIX = 'fovs';

// The ownership mark of a host veth names its attachment in full (see hostVethAlias), and the
// kernel keeps at most 255 bytes of an ifalias (IFALIASZ - 1). With the fixed parts
// (`fabrik:cni-ovs:` and two ':', 17 bytes) and an ifname of at most 15 bytes, network name and
// container id share 223 bytes: container ids get 128 (the skeleton's MAX_CONTAINER_ID_LENGTH; runtimes use 64 hex
// digits), network names 95. Both also become directory names in the cache.
/** Longest network `name` accepted (code 7 beyond). */
export const MAX_NETWORK_NAME_LENGTH = 95;

/**
 * The host end of an attachment's veth: `fovs` + 11 hex digits of sha256(containerID/ifname),
 * 15 characters (the kernel limit). The same attachment always gets the same name, so DEL finds
 * it without a cache; 44 bits make a collision between live attachments negligible, and the
 * ownership mark tells a colliding foreign link apart.
 */
export function hostVethName(containerId: string, ifname: string): string {
  return (
    HOST_VETH_PREFIX + createHash('sha256').update(`${containerId}/${ifname}`).digest('hex').slice(0, 11)
  );
}

/** A random locally administered unicast MAC (02:xx:...). */
export function randomMac(): string {
  const b = randomBytes(6);
  b[0] = ((b[0] ?? 0) & 0xfc) | 0x02;
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join(':');
}

/** Which attachment a host veth belongs to. */
export interface AttachmentId {
  readonly network: string;
  readonly containerId: string;
  readonly ifname: string;
}

/**
 * The ifalias written on the host veth (netcore's mark `fabrik:<owner>:<label>`): names the owner
 * and the attachment, so DEL and GC delete only veths that are this attachment's, and GC finds them
 * when the OVS port and the cache record are gone.
 */
export function hostVethAlias(a: AttachmentId): string {
  return `fabrik:${CNI_OVS_OWNER}:${a.network}:${a.containerId}:${a.ifname}`;
}

/** The inverse of {@link hostVethAlias}; undefined for any other alias. */
export function parseHostVethAlias(alias: string): AttachmentId | undefined {
  const prefix = `fabrik:${CNI_OVS_OWNER}:`;
  if (!alias.startsWith(prefix)) return undefined;
  // Neither network names nor container ids contain ':'; an ifname may not either.
  const parts = alias.slice(prefix.length).split(':');
  if (parts.length !== 3 || parts.some((p) => p === '')) return undefined;
  const [network = '', containerId = '', ifname = ''] = parts;
  return { network, containerId, ifname };
}

/** True when `alias` marks the veth as fabrik-ovs's for this container and interface. */
export function marksAttachment(alias: string | undefined, containerId: string, ifname: string): boolean {
  const owner = alias === undefined ? undefined : parseHostVethAlias(alias);
  return owner?.containerId === containerId && owner.ifname === ifname;
}
