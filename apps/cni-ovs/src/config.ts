import { z } from 'zod';
import { InterfaceName, VlanId } from '@fabrik/api';
import { CniError, CniErrorCode, parseCniArgs } from './skel/index.js';

/** The OVSDB endpoint of a standard Open vSwitch installation. */
export const DEFAULT_OVSDB_SOCKET = 'unix:/var/run/openvswitch/db.sock';
/** Where attachments are remembered between ADD and DEL; on disk, so it survives a reboot. */
export const DEFAULT_CACHE_DIR = '/var/lib/cni/fabrik-ovs';

const NetworkName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'must start with a letter or digit, then letters, digits, _ . -');
const Mac = z
  .string()
  .regex(/^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$/, 'must be a MAC address like 02:00:00:00:00:01')
  .refine((m) => (parseInt(m.slice(0, 2), 16) & 1) === 0, 'must be a unicast MAC address (first octet even)')
  .transform((m) => m.toLowerCase());
/** An IP to request, with or without prefix length (IPAM plugins accept both). */
const RequestedIp = z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()]);
const AbsolutePath = z.string().regex(/^\/[^\0]*$/, 'must be an absolute path');
const OvsdbEndpoint = z
  .string()
  .regex(
    /^(unix:\/[^\0]+|tcp:[^:\s]+:\d{1,5}|tcp:\[[0-9a-fA-F:]+\]:\d{1,5})$/,
    'must be unix:/PATH or tcp:HOST:PORT',
  );

const TrunkRange = z.union([
  z.object({ id: VlanId }).strict(),
  z
    .object({ minID: VlanId, maxID: VlanId })
    .strict()
    .refine((r) => r.minID <= r.maxID, 'minID must not be greater than maxID'),
]);

const IpsAndMac = z.object({ mac: Mac.optional(), ips: z.array(RequestedIp).optional() });

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
    ovsdbSocket: OvsdbEndpoint.default(DEFAULT_OVSDB_SOCKET),
    ovsdbTimeoutMs: z.number().int().min(100).max(120_000).default(5000),
    ofportTimeoutMs: z.number().int().min(100).max(120_000).default(10_000),
    cacheDir: AbsolutePath.default(DEFAULT_CACHE_DIR),
    agentHostConfig: AbsolutePath.optional(),
    ipam: z
      .looseObject({ type: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'must be a plugin file name') })
      .optional(),
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
  readonly ovsdbSocket: string;
  readonly ovsdbTimeoutMs: number;
  readonly ofportTimeoutMs: number;
  readonly cacheDir: string;
  readonly agentHostConfig?: string;
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

const KNOWN_CNI_ARGS = new Set([
  'IgnoreUnknown',
  'K8S_POD_NAME',
  'K8S_POD_NAMESPACE',
  'K8S_POD_INFRA_CONTAINER_ID',
  'K8S_POD_UID',
  'MAC',
  'IP',
]);

/**
 * Parses and validates the network config and CNI_ARGS, applies defaults and merges the override
 * sources (later wins: CNI_ARGS, then `args.cni`, then `runtimeConfig`). The only place that does.
 * Throws CniError 7 naming the field, or 4 for a bad CNI_ARGS.
 */
export function loadNetConf(config: Record<string, unknown>, cniArgs: string, cniVersion: string): NetConf {
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
  const env = loadCniArgs(cniArgs);
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
    ovsdbSocket: c.ovsdbSocket,
    ovsdbTimeoutMs: c.ovsdbTimeoutMs,
    ofportTimeoutMs: c.ofportTimeoutMs,
    cacheDir: c.cacheDir,
    ...(c.agentHostConfig !== undefined ? { agentHostConfig: c.agentHostConfig } : {}),
    ...(c.ipam ? { ipamType: c.ipam.type } : {}),
    ...(mac !== undefined ? { mac } : {}),
    ips: ips ?? [],
    ...(env.podName !== undefined ? { podName: env.podName } : {}),
    ...(env.podNamespace !== undefined ? { podNamespace: env.podNamespace } : {}),
    ...(c.prevResult !== undefined ? { prevResult: c.prevResult } : {}),
    ...(c['cni.dev/valid-attachments'] ? { validAttachments: c['cni.dev/valid-attachments'] } : {}),
  };
}

function loadCniArgs(text: string): {
  mac?: string;
  ips?: string[];
  podName?: string;
  podNamespace?: string;
} {
  const pairs = parseCniArgs(text);
  const ignoreUnknown = pairs.some(([k, v]) => k === 'IgnoreUnknown' && ['1', 'true', 'True'].includes(v));
  const out: { mac?: string; ips?: string[]; podName?: string; podNamespace?: string } = {};
  for (const [key, value] of pairs) {
    if (!KNOWN_CNI_ARGS.has(key)) {
      if (ignoreUnknown) continue;
      throw new CniError(
        CniErrorCode.invalidEnvironment,
        `CNI_ARGS: unknown key ${key} (set IgnoreUnknown=1 to ignore it)`,
      );
    }
    if (key === 'MAC') out.mac = fieldOrThrow(Mac, value, 'CNI_ARGS MAC');
    if (key === 'IP')
      out.ips = value.split(',').map((ip) => fieldOrThrow(RequestedIp, ip.trim(), 'CNI_ARGS IP'));
    if (key === 'K8S_POD_NAME') out.podName = value;
    if (key === 'K8S_POD_NAMESPACE') out.podNamespace = value;
  }
  return out;
}

function fieldOrThrow<T>(schema: z.ZodType<T>, value: string, field: string): T {
  const r = schema.safeParse(value);
  if (!r.success)
    throw new CniError(
      CniErrorCode.invalidEnvironment,
      `${field}: ${JSON.stringify(value)} ${r.error.issues[0]?.message ?? 'is invalid'}`,
    );
  return r.data;
}

function expandTrunks(ranges: ReadonlyArray<{ id: number } | { minID: number; maxID: number }>): number[] {
  const ids = new Set<number>();
  for (const r of ranges) {
    if ('id' in r) ids.add(r.id);
    else for (let id = r.minID; id <= r.maxID; id++) ids.add(id);
  }
  return [...ids].sort((a, b) => a - b);
}
