import { createHash, randomBytes } from 'node:crypto';

/** Owner in the ifalias ownership mark (`fabrik:<owner>:<label>`, netcore's convention). */
const LINK_OWNER = 'cni-ovs';

/** Prefix of every host-side veth fabrik-ovs creates (and the only ones GC may delete). */
export const HOST_VETH_PREFIX = 'fovs';

/**
 * The host end of an attachment's veth: `fovs` + 11 hex digits of sha256(containerID/ifname),
 * 15 characters (the kernel limit). The same attachment always gets the same name, so DEL finds
 * it without a cache; 44 bits make a collision between live attachments negligible.
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

/**
 * The ifalias written on the host veth: names the owner and the attachment, so GC can recognise
 * veths it created even when the OVS port or the cache entry is gone.
 */
export function hostVethAlias(network: string, containerId: string, ifname: string): string {
  return `fabrik:${LINK_OWNER}:${network}:${containerId}:${ifname}`;
}

/** The inverse of {@link hostVethAlias}; undefined for any other alias. */
export function parseHostVethAlias(
  alias: string,
): { network: string; containerId: string; ifname: string } | undefined {
  const m = /^fabrik:cni-ovs:([^:]+):([^:]+):(.+)$/.exec(alias);
  return m ? { network: m[1] ?? '', containerId: m[2] ?? '', ifname: m[3] ?? '' } : undefined;
}
