import { InterfaceName, NetnsName, SysctlSafeInterfaceName } from '@fabrik/api';
import { InvalidDesiredStateError } from './errors.js';

/** The kernel's limit for interface names (IFNAMSIZ - 1). */
export const MAX_INTERFACE_NAME_LENGTH = 15;

/**
 * Returns `name` when it is a valid Linux interface name (the shared `InterfaceName` rule of
 * @fabrik/api); otherwise throws {@link InvalidDesiredStateError} naming `field`.
 * Names are never truncated: a name that does not fit is an error.
 */
export function checkInterfaceName(name: unknown, field = 'name'): string {
  const parsed = InterfaceName.safeParse(name);
  if (!parsed.success) {
    throw new InvalidDesiredStateError(
      field,
      `${JSON.stringify(name)} ${parsed.error.issues[0]?.message ?? 'is not a valid interface name'}`,
    );
  }
  return parsed.data;
}

/**
 * Returns `name` when it may become a segment of a sysctl path (`net/ipv4/conf/NAME/...`): a valid
 * interface name other than `all`, `default` and `lo` (@fabrik/api's `SysctlSafeInterfaceName`),
 * which would set a namespace-wide knob or the loopback's. Throws {@link InvalidDesiredStateError}
 * naming `field` otherwise.
 */
export function checkSysctlDevice(name: unknown, field = 'dev'): string {
  const parsed = SysctlSafeInterfaceName.safeParse(name);
  if (!parsed.success) {
    throw new InvalidDesiredStateError(
      field,
      `${JSON.stringify(name)} ${parsed.error.issues[0]?.message ?? 'cannot be used in a sysctl path'}`,
    );
  }
  return parsed.data;
}

/**
 * The name of VLAN `vid` on `parent`, `<parent>.<vid>` (for example `tr.100`); throws instead
 * of truncating when the result exceeds 15 characters.
 */
export function vlanLinkName(parent: string, vid: number): string {
  return checkInterfaceName(`${checkInterfaceName(parent, 'parent')}.${vid}`, 'vlan name');
}

// A netns is addressed either by its name under /run/netns or by the path of a netns file
// (what CNI passes: /proc/PID/ns/net, /var/run/netns/cni-...). Names follow @fabrik/api's
// `NetnsName`, the rule netns/ validates with too.
const NAMED_NETNS_PATH = /^\/(?:var\/)?run\/netns\/([^/]+)$/;
const isNetnsName = (s: string): boolean => NetnsName.safeParse(s).success;

/** A validated network namespace reference. */
export type NetnsTarget =
  { readonly kind: 'name'; readonly name: string } | { readonly kind: 'path'; readonly path: string };

/**
 * Parses a netns reference: a name (`hbr`) or an absolute path (`/proc/123/ns/net`,
 * `/var/run/netns/cni-1234`). Paths below /run/netns are turned into names.
 */
export function parseNetnsTarget(ref: string, field = 'netns'): NetnsTarget {
  const named = NAMED_NETNS_PATH.exec(ref);
  if (named?.[1] && isNetnsName(named[1])) return { kind: 'name', name: named[1] };
  if (ref.startsWith('/')) {
    if (ref.includes('\0') || ref.split('/').some((part) => part === '..')) {
      throw new InvalidDesiredStateError(field, `${JSON.stringify(ref)} is not a clean absolute path`);
    }
    return { kind: 'path', path: ref };
  }
  if (!isNetnsName(ref)) {
    throw new InvalidDesiredStateError(
      field,
      `${JSON.stringify(ref)} is neither a netns name (1-64 of [A-Za-z0-9_.-]) nor an absolute path`,
    );
  }
  return { kind: 'name', name: ref };
}

/** The form iproute2's `netns` link attribute accepts: a name under /run/netns or an absolute path. */
export const netnsArg = (target: NetnsTarget): string => (target.kind === 'name' ? target.name : target.path);
