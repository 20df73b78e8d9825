import { z } from 'zod';
import {
  BgpAsn,
  Cidr,
  HostBridge,
  ListenAddress,
  NamespaceName,
  NodeUnderlay,
  ObjectName,
  VrfName,
} from '@fabrik/api';
import { loadConfig } from '@fabrik/agent-runtime';

/** Where fabrik-operator reads its configuration. */
export const OPERATOR_CONFIG_PATH = '/etc/fabrik/operator.yaml';

const Ipv4Cidr = Cidr.refine((c) => !c.includes(':'), 'must be an IPv4 CIDR');

/** An AS number for every node, or a range `{from, to}` that gives each node its own. */
const AsnPool = z.union([
  BgpAsn,
  z
    .object({ from: BgpAsn, to: BgpAsn })
    .strict()
    .refine((r) => r.from <= r.to, { message: 'from must not be above to', path: ['to'] }),
]);

/** fabrik-operator's configuration file (YAML). */
export const OperatorConfig = z
  .object({
    identity: z
      .object({
        routerIdPool: Ipv4Cidr.describe('Router IDs of nodes without the router-id annotation.'),
        vtepPool: Ipv4Cidr.describe('VTEP addresses of nodes without the vtep-ip annotation.'),
        asn: AsnPool,
      })
      .strict(),
    /** The HBR's own VRF, which Layer2Networks may name without a VRF object. */
    hbrVrf: VrfName.default('hbr'),
    underlay: NodeUnderlay.optional(),
    hostBridges: z.array(HostBridge).max(16).optional(),
    /** A Node deleted keeps its NodeNetworkConfig (and so its identity) this long. */
    deletedNodeGraceSeconds: z
      .number()
      .int()
      .min(0)
      .max(30 * 24 * 3600)
      .default(600),
    /** How nodes move to a new revision (docs/operator.md, "Rollouts"). */
    rollout: z
      .object({
        maxUnavailable: z
          .union([
            z.number().int().min(1),
            z
              .string()
              .regex(
                /^(100|[1-9][0-9]?)%$/,
                'must be a percentage from 1% to 100%',
              ) as z.ZodType<`${number}%`>,
          ])
          .default(1)
          .describe(
            'Nodes moved and not yet updated at once: a number, or a percentage of the nodes to move.',
          ),
        canaryLabel: z.string().min(1).max(317).default('network.fabrik.dev/canary'),
        heartbeatMaxAgeSeconds: z.number().int().min(1).max(3600).default(60),
        nodeTimeoutSeconds: z
          .number()
          .int()
          .min(1)
          .max(24 * 3600)
          .default(300),
      })
      .strict()
      .default({
        maxUnavailable: 1,
        canaryLabel: 'network.fabrik.dev/canary',
        heartbeatMaxAgeSeconds: 60,
        nodeTimeoutSeconds: 300,
      }),
    /** Changes arriving within this long are rendered in one pass. */
    debounceMs: z.number().int().min(0).max(1000).default(200),
    metricsAddress: ListenAddress.default(':9741'),
    healthAddress: ListenAddress.default(':9742'),
    /** The Lease that lets one replica be active. */
    lease: z
      .object({
        namespace: NamespaceName.default('fabrik-system'),
        name: ObjectName.default('fabrik-operator'),
        durationSeconds: z.number().int().min(2).max(300).default(15),
      })
      .strict()
      .default({ namespace: 'fabrik-system', name: 'fabrik-operator', durationSeconds: 15 }),
  })
  .strict();
export type OperatorConfig = z.infer<typeof OperatorConfig>;
export type OperatorConfigInput = z.input<typeof OperatorConfig>;

export const loadOperatorConfig = (path: string): Promise<OperatorConfig> => loadConfig(path, OperatorConfig);
