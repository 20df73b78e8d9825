import { z } from 'zod';
import { parseWith, type ParseResult } from '../validation.js';
import { AGENT_HOST_CONFIG_PATH, DEFAULT_OVSDB_SOCKET, OvsdbAddress } from './agent-host-config.js';
import { AbsolutePath } from './common.js';

// The node-level settings of fabrik's CNI plugins (fabrik-ovs, fabrik-ipam): one file per node,
// written by the installer. They steer a root process (paths it writes, the OVSDB it talks to,
// the credentials it uses), so they never come from a network config, which tenants can write.

/** Where fabrik-ovs remembers attachments between ADD and DEL; on disk, so it survives a reboot. */
export const DEFAULT_CNI_CACHE_DIR = '/var/lib/cni/fabrik-ovs';
/** The kubeconfig fabrik-ipam uses, written by the installer beside the settings file. */
export const DEFAULT_IPAM_KUBECONFIG = '/etc/cni/net.d/fabrik.d/fabrik-ipam.kubeconfig';

// Kernel pseudo-filesystems: their "files" are not storage (mkdir under /proc answers ENOENT
// forever, writes go to kernel knobs), so no setting may point into them.
const PSEUDO_FS_ROOTS = ['/proc', '/sys', '/dev'];
const MAX_PATH_BYTES = 1024;
const utf8Bytes = (s: string): number => new TextEncoder().encode(s).length;

/**
 * An absolute path on a real file system: normalised (no `.`/`..`/empty segments), at most 1024
 * bytes (files are created below it), not inside /proc, /sys or /dev.
 */
export const NodeLocalPath = AbsolutePath.refine(
  (p) => utf8Bytes(p) <= MAX_PATH_BYTES,
  `must be at most ${MAX_PATH_BYTES} bytes`,
)
  .refine(
    (p) =>
      p === '/' ||
      p
        .slice(1)
        .split('/')
        .every((s) => s !== '' && s !== '.' && s !== '..'),
    'must be a normalised path (no empty, "." or ".." segments, no trailing "/")',
  )
  .refine(
    (p) => !PSEUDO_FS_ROOTS.some((root) => p === root || p.startsWith(`${root}/`)),
    `must not be inside ${PSEUDO_FS_ROOTS.join(', ')}`,
  );

const timeoutMs = (fallback: number) => z.number().int().min(100).max(120_000).default(fallback);

/** How long the plugins wait for the node's services. */
export const CniTimeouts = z.strictObject({
  /** Connect and request timeout towards ovsdb-server. */
  ovsdbTimeoutMs: timeoutMs(5000),
  /** How long ADD waits for ovs-vswitchd to give a port an OpenFlow port number. */
  ofportTimeoutMs: timeoutMs(10_000),
  /**
   * How long fabrik-ovs lets a delegated IPAM plugin run (each call): then its whole process
   * group is killed, so nothing it started outlives the call.
   */
  ipamTimeoutMs: timeoutMs(60_000),
});
export type CniTimeouts = z.infer<typeof CniTimeouts>;

/** Where host-local keeps its leases unless the node settings say otherwise (host-local's own default). */
export const DEFAULT_HOST_LOCAL_DATA_DIR = '/var/lib/cni/networks';

/** The IPAM plugins a network config may name by default. */
export const DEFAULT_IPAM_TYPES = ['fabrik-ipam', 'host-local', 'static', 'dhcp'] as const;

/**
 * Plugins that are no IPAM plugin (the main and meta plugins of containernetworking/plugins, and
 * fabrik-ovs itself): as `ipam.type` they would get the whole network config as their own and run
 * as root, and fabrik-ovs as its own IPAM would start itself without end. No node may allow them.
 */
export const NOT_IPAM_PLUGINS: readonly string[] = [
  'fabrik-ovs',
  'bandwidth',
  'bridge',
  'dummy',
  'firewall',
  'host-device',
  'ipvlan',
  'loopback',
  'macvlan',
  'portmap',
  'ptp',
  'sbr',
  'tap',
  'tuning',
  'vlan',
  'vrf',
];

/** A plugin file name on CNI_PATH, as `ipam.type` names it. */
export const IpamPluginType = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,255}$/, 'must be a plugin file name (1-255 of A-Z a-z 0-9 _ . -)')
  .refine((t) => t !== '.' && t !== '..', 'must be a plugin file name, not "." or ".."')
  .refine(
    (t) => !NOT_IPAM_PLUGINS.includes(t),
    'is not an IPAM plugin (a main or meta plugin, or fabrik-ovs itself): never allowed as ipam.type',
  );

/** Settings of the IPAM plugins: which ones a network config may name, and fabrik-ipam's own. */
export const CniIpamSettings = z.strictObject({
  /**
   * The plugins a network config's `ipam.type` may name; anything else is refused. fabrik-ovs
   * executes them as root with the tenant's config, so the node decides which.
   */
  allowedTypes: z.array(IpamPluginType).default([...DEFAULT_IPAM_TYPES]),
  /**
   * host-local's `dataDir` (where its lease files are written as root): always this, never the
   * network config's.
   */
  hostLocalDataDir: NodeLocalPath.default(DEFAULT_HOST_LOCAL_DATA_DIR),
  /** kubeconfig for the IPPool API. */
  kubeconfig: NodeLocalPath.default(DEFAULT_IPAM_KUBECONFIG),
  /**
   * How long one fabrik-ipam command may wait for the API server: each request, and the retries of
   * status writes lost to concurrent writers. Then ADD fails with code 11 (try again later).
   */
  timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
});
export type CniIpamSettings = z.infer<typeof CniIpamSettings>;

/**
 * The node settings file of fabrik's CNI plugins (YAML; JSON is YAML too). Every field has a
 * default, so a node without the file works with a standard Open vSwitch. Unknown fields are
 * refused, so a misspelt setting is an error rather than silently the default.
 */
export const CniNodeSettings = z.strictObject({
  ovsdbSocket: OvsdbAddress.default(DEFAULT_OVSDB_SOCKET),
  /** Attachment records of fabrik-ovs. */
  cacheDir: NodeLocalPath.default(DEFAULT_CNI_CACHE_DIR),
  /** The host agent's config file; its first `secondaryNetwork.ovsBridges` entry is the default bridge. */
  agentHostConfig: NodeLocalPath.default(AGENT_HOST_CONFIG_PATH),
  /** The host agent's CNI socket (the fast path). Absent: the plugins do all the work themselves. */
  agentHostSocket: NodeLocalPath.optional(),
  ipam: CniIpamSettings.prefault({}),
  timeouts: CniTimeouts.prefault({}),
});
export type CniNodeSettings = z.infer<typeof CniNodeSettings>;
/** What the file may hold (every field optional). */
export type CniNodeSettingsInput = z.input<typeof CniNodeSettings>;

/** Validates a parsed settings file; the error names every bad field (`timeouts.ovsdbTimeoutMs`). */
export function parseCniNodeSettings(input: unknown): ParseResult<CniNodeSettings> {
  return parseWith(CniNodeSettings, () => 'CniNodeSettings', input);
}
