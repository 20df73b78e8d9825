import { z } from 'zod';
import {
  CNI_NODE_SETTINGS_PATH,
  InterfaceName,
  IpamPluginType,
  MacAddress,
  VlanId,
  nonUnicastKind,
} from '@fabrik/api';
import { MAX_NETWORK_NAME_LENGTH } from './names.js';
import { CniError, CniErrorCode, readCniArgs, RequestedIp } from '@fabrik/cni-skel';

// SPEC.md: "alphanumeric, optionally followed by alphanumerics, underscore, dot or hyphen".
// The name is also a directory in the cache and part of the host veth's ifalias: bounded.
const NetworkName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'must start with a letter or digit, then letters, digits, _ . -')
  .max(MAX_NETWORK_NAME_LENGTH, `must be at most ${MAX_NETWORK_NAME_LENGTH} characters`);

/**
 * Settings that belong to the node (CniNodeSettings in the node settings file), never to a network
 * config: tenants write network configs (NetworkAttachmentDefinitions), and these would let them
 * steer a root process to other paths or another OVSDB. ADD, CHECK, GC and STATUS refuse them.
 */
export const NODE_LEVEL_FIELDS = [
  'ovsdbSocket',
  'cacheDir',
  'agentHostConfig',
  'agentHostSocket',
  'timeouts',
  'ovsdbTimeoutMs',
  'ofportTimeoutMs',
  'ipamTimeoutMs',
  'kubeconfig',
  'timeoutMs',
  'allowedTypes',
  'hostLocalDataDir',
] as const;

const TrunkRange = z.union([
  z.object({ id: VlanId }).strict(),
  z
    .object({ minID: VlanId, maxID: VlanId })
    .strict()
    .refine((r) => r.minID <= r.maxID, 'minID must not be greater than maxID'),
]);

/**
 * The `ipam` section as far as fabrik-ovs reads it: the plugin's type (a file name on CNI_PATH, the
 * node's allow-list is checked where it is known) and, for `static`, that each address is one an
 * interface may own. The rest belongs to the plugin.
 */
const IpamSection = z.looseObject({ type: IpamPluginType }).superRefine((ipam, ctx) => {
  if (ipam.type !== 'static' || !Array.isArray(ipam['addresses'])) return;
  for (const [i, entry] of (ipam['addresses'] as unknown[]).entries()) {
    const address = (entry as { address?: unknown } | null)?.address;
    const parsed = z.union([z.cidrv4(), z.cidrv6()]).safeParse(address);
    const kind = parsed.success ? nonUnicastKind(parsed.data) : undefined;
    if (kind)
      ctx.addIssue({
        code: 'custom',
        path: ['addresses', i, 'address'],
        message: `${parsed.data} is a ${kind} address, not a unicast one`,
      });
  }
});

const IpsAndMac = z.object({ mac: MacAddress.optional(), ips: z.array(RequestedIp).optional() });

const NetConfSchema = z
  .object({
    cniVersion: z.string().optional(),
    cniVersions: z.array(z.string()).optional(),
    name: NetworkName,
    type: z.string().min(1),
    networkType: z.enum(['vlan', 'bridge']).default('vlan'),
    vlan: z.number().int().min(0).max(4094).default(0),
    trunk: z.array(TrunkRange).default([]),
    mtu: z.number().int().min(68).max(65535).optional(),
    bridge: InterfaceName.optional(),
    ipam: IpamSection.optional(),
    args: z.looseObject({ cni: IpsAndMac.loose().optional() }).optional(),
    runtimeConfig: IpsAndMac.loose().optional(),
    prevResult: z.unknown().optional(),
    'cni.dev/valid-attachments': z
      .array(z.looseObject({ containerID: z.string(), ifname: z.string() }))
      .optional(),
  })
  .loose()
  .superRefine((c, ctx) => {
    if (c.networkType === 'bridge' && (c.vlan !== 0 || c.trunk.length > 0)) {
      ctx.addIssue({
        code: 'custom',
        path: ['networkType'],
        message: 'networkType "bridge" is untagged: vlan and trunk must be unset',
      });
    }
  });

/** A trunk as OVS wants it: every VLAN id, ascending. */
export type TrunkRange = { minID: number; maxID: number };

/** A validated config with every default applied and every source of overrides merged. */
export interface NetConf {
  readonly cniVersion: string;
  readonly name: string;
  readonly type: string;
  readonly networkType: 'vlan' | 'bridge';
  readonly vlan: number;
  readonly trunks: readonly number[];
  readonly mtu?: number;
  readonly bridge?: string;
  readonly ipamType?: string;
  /** MAC of the Pod interface: CNI_ARGS MAC, then args.cni.mac, then runtimeConfig.mac. */
  readonly mac?: string;
  /** Requested IPs: CNI_ARGS IP, then args.cni.ips, then runtimeConfig.ips. */
  readonly ips: readonly string[];
  readonly podName?: string;
  readonly podNamespace?: string;
  readonly prevResult?: unknown;
  readonly validAttachments?: ReadonlyArray<{ containerID: string; ifname: string }>;
}

/**
 * Parses and validates the network config and CNI_ARGS, applies defaults and merges the override
 * sources (later wins: CNI_ARGS, then `args.cni`, then `runtimeConfig`). The only place that does.
 * Throws CniError 7 naming the field (a node-level field too, see {@link NODE_LEVEL_FIELDS}), or 4
 * for a bad CNI_ARGS. `ignoreNodeFields` is for DEL, which uses none of them: an attachment added
 * before they moved to the node settings must still be deletable.
 */
export function loadNetConf(
  config: Record<string, unknown>,
  cniArgs: string,
  cniVersion: string,
  options: { ignoreNodeFields?: boolean } = {},
): NetConf {
  const nodeField = nodeFieldIn(config);
  if (nodeField !== undefined && !options.ignoreNodeFields) {
    throw new CniError(
      CniErrorCode.invalidNetworkConfig,
      `invalid network config: ${nodeField.field}: a node setting, not allowed in a network config (set ${nodeField.setting} in the node settings file, ${CNI_NODE_SETTINGS_PATH} by default)`,
    );
  }
  const parsed = NetConfSchema.safeParse(config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? issue.path.map(String).join('.') : '(config)';
    throw new CniError(
      CniErrorCode.invalidNetworkConfig,
      `invalid network config: ${field}: ${issue?.message ?? 'invalid'}`,
      parsed.error.message,
    );
  }
  const c = parsed.data;
  const env = readCniArgs(cniArgs);
  const mac = c.runtimeConfig?.mac ?? c.args?.cni?.mac ?? env.mac;
  const ips = c.runtimeConfig?.ips ?? c.args?.cni?.ips ?? env.ips;
  const trunks = expandTrunks(c.trunk);
  return {
    cniVersion,
    name: c.name,
    type: c.type,
    networkType: c.networkType,
    vlan: c.vlan,
    trunks,
    ...(c.mtu !== undefined ? { mtu: c.mtu } : {}),
    ...(c.bridge !== undefined ? { bridge: c.bridge } : {}),
    ...(c.ipam ? { ipamType: c.ipam.type } : {}),
    ...(mac !== undefined ? { mac } : {}),
    ips: ips ?? [],
    ...(env.podName !== undefined ? { podName: env.podName } : {}),
    ...(env.podNamespace !== undefined ? { podNamespace: env.podNamespace } : {}),
    ...(c.prevResult !== undefined ? { prevResult: c.prevResult } : {}),
    ...(c['cni.dev/valid-attachments'] ? { validAttachments: c['cni.dev/valid-attachments'] } : {}),
  };
}

/** The first field of `config` that only the node may set, and the node setting that sets it. */
function nodeFieldIn(config: Record<string, unknown>): { field: string; setting: string } | undefined {
  const top = NODE_LEVEL_FIELDS.find((f) => f in config);
  if (top !== undefined) return { field: top, setting: 'it' };
  // host-local writes its leases, as root, below `dataDir`: the node's directory, never a tenant's.
  const ipam = config['ipam'] as { type?: unknown } | undefined;
  if (ipam && typeof ipam === 'object' && ipam.type === 'host-local' && 'dataDir' in ipam)
    return { field: 'ipam.dataDir', setting: 'ipam.hostLocalDataDir' };
  return undefined;
}

function expandTrunks(ranges: ReadonlyArray<{ id: number } | { minID: number; maxID: number }>): number[] {
  const ids = new Set<number>();
  for (const r of ranges) {
    if ('id' in r) ids.add(r.id);
    else for (let id = r.minID; id <= r.maxID; id++) ids.add(id);
  }
  return [...ids].sort((a, b) => a - b);
}
