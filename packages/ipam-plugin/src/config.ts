import { Cidr, IpAddress, ObjectName, PodOwner, type CniIpamSettings } from '@fabrik/api';
import { CniError, CniErrorCode, readCniArgs, RequestedIp } from '@fabrik/cni-skel';
import { z } from 'zod';

// The network config of fabrik-ipam: the `ipam` section of a NetworkAttachmentDefinition (or of
// any CNI network config that delegates to it), Antrea's shape. Tenants write these, so nothing
// that steers the plugin on the node (kubeconfig, timeouts) may come from here: those are node
// settings (CniNodeSettings `ipam`).

/** Fields of the node settings' `ipam` section, and whereabouts' name for a kubeconfig: refused by name. */
const NODE_LEVEL_FIELDS = ['kubeconfig', 'kubernetes', 'timeoutMs'] as const satisfies ReadonlyArray<
  keyof CniIpamSettings | 'kubernetes'
>;

const Route = z.strictObject({ dst: Cidr, gw: IpAddress.optional() });
const Dns = z.strictObject({
  nameservers: z.array(IpAddress).max(16).optional(),
  domain: z.string().max(253).optional(),
  search: z.array(z.string().max(253)).max(16).optional(),
  options: z.array(z.string().max(64)).max(16).optional(),
});

const IpamSection = z
  .strictObject({
    type: z.string().min(1),
    ippools: z
      .array(ObjectName)
      .min(1)
      .max(2)
      .refine((l) => new Set(l).size === l.length, 'names a pool twice')
      .optional(),
    ippool: ObjectName.optional(),
    routes: z.array(Route).max(64).optional(),
    dns: Dns.optional(),
  })
  .refine((s) => (s.ippools === undefined) !== (s.ippool === undefined), {
    message: 'give either ippools (one pool per address family) or ippool',
    path: ['ippools'],
  });

/** SPEC.md: "alphanumeric, optionally followed by alphanumerics, underscore, dot or hyphen". */
const NetworkName = z
  .string()
  .max(253)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'must start with a letter or digit, then letters, digits, _ . -');

const Ips = z.object({ ips: z.array(RequestedIp).optional() });

const NetConfSchema = z.looseObject({
  name: NetworkName,
  ipam: IpamSection,
  args: z.looseObject({ cni: Ips.loose().optional() }).optional(),
  runtimeConfig: Ips.loose().optional(),
  prevResult: z.unknown().optional(),
  'cni.dev/valid-attachments': z
    .array(z.looseObject({ containerID: z.string().min(1), ifname: z.string().min(1) }))
    .optional(),
});

/** A validated fabrik-ipam config, every source of overrides merged. */
export interface IpamConf {
  /** The network name (the config's `name`): recorded with each address, and GC's scope. */
  readonly network: string;
  /** The pools, one per address family, in the order given. */
  readonly pools: readonly string[];
  /** Where `pools` came from, for messages naming a pool: `ipam.ippools` or `ipam.ippool`. */
  readonly poolsField: 'ipam.ippools' | 'ipam.ippool';
  readonly routes: ReadonlyArray<{ dst: string; gw?: string }>;
  readonly dns: z.infer<typeof Dns>;
  /** Requested addresses without prefix length: CNI_ARGS IP, then args.cni.ips, then runtimeConfig.ips. */
  readonly requested: readonly string[];
  readonly prevResult?: unknown;
  readonly validAttachments?: ReadonlyArray<{ containerID: string; ifname: string }>;
}

const invalid = (field: string, message: string, details?: string) =>
  new CniError(CniErrorCode.invalidNetworkConfig, `invalid network config: ${field}: ${message}`, details);

/**
 * Validates the network config (code 7 naming the field) and CNI_ARGS (code 4), and merges the
 * requested addresses. The only place that reads them.
 */
export function loadIpamConf(config: Record<string, unknown>, cniArgs: string): IpamConf {
  const ipam = config['ipam'];
  if (ipam && typeof ipam === 'object') {
    const nodeField = NODE_LEVEL_FIELDS.find((f) => f in ipam);
    if (nodeField)
      throw invalid(
        `ipam.${nodeField}`,
        'a node setting, not allowed in a network config (set ipam in the node settings file, /etc/cni/net.d/fabrik.d/config.yaml by default)',
      );
  }
  const parsed = NetConfSchema.safeParse(config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // An unknown field is named itself (`ipam.kubeconfigPath: unknown field`), as kubectl does.
    const path =
      issue?.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : (issue?.path ?? []);
    const message = issue?.code === 'unrecognized_keys' ? 'unknown field' : (issue?.message ?? 'invalid');
    throw invalid(path.length ? path.map(String).join('.') : '(config)', message, parsed.error.message);
  }
  const c = parsed.data;
  const env = readCniArgs(cniArgs);
  const requested = c.runtimeConfig?.ips ?? c.args?.cni?.ips ?? env.ips ?? [];
  return {
    network: c.name,
    pools: c.ipam.ippools ?? [c.ipam.ippool ?? ''],
    poolsField: c.ipam.ippools ? 'ipam.ippools' : 'ipam.ippool',
    routes: c.ipam.routes ?? [],
    dns: c.ipam.dns ?? {},
    requested: requested.map((ip) => ip.split('/')[0] ?? ip),
    ...(c.prevResult !== undefined ? { prevResult: c.prevResult } : {}),
    ...(c['cni.dev/valid-attachments'] ? { validAttachments: c['cni.dev/valid-attachments'] } : {}),
  };
}

/** The field that names the pool at `index` (`ipam.ippools.1`, `ipam.ippool`). */
export function poolField(conf: IpamConf, index: number): string {
  return conf.poolsField === 'ipam.ippool' ? conf.poolsField : `${conf.poolsField}.${index}`;
}

/**
 * Who ADD records as the owner of its addresses: the Pod (CNI_ARGS K8S_POD_NAME and
 * K8S_POD_NAMESPACE, which the kubelet and Multus pass), the attachment and the network. Code 4
 * when the Pod is not named: an address without its Pod cannot be traced.
 */
export function podOwner(conf: IpamConf, cniArgs: string, containerID: string, ifName: string): PodOwner {
  const env = readCniArgs(cniArgs);
  if (!env.podName || !env.podNamespace)
    throw new CniError(
      CniErrorCode.invalidEnvironment,
      'CNI_ARGS K8S_POD_NAME and K8S_POD_NAMESPACE are required: fabrik-ipam records the Pod that owns each address',
    );
  const owner = PodOwner.safeParse({
    name: env.podName,
    namespace: env.podNamespace,
    containerID,
    ifName,
    network: conf.network,
  });
  if (!owner.success) {
    const issue = owner.error.issues[0];
    const field = { name: 'CNI_ARGS K8S_POD_NAME', namespace: 'CNI_ARGS K8S_POD_NAMESPACE' }[
      String(issue?.path[0])
    ];
    throw new CniError(
      CniErrorCode.invalidEnvironment,
      `${field ?? String(issue?.path[0])}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return owner.data;
}
