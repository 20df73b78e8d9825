import { z } from 'zod';
import { BgpAsn, FrrIntentSchema, UnderlayNeighbor } from '../routing-intent/schema.js';
import { InterfaceName, NetnsName, VrfName } from '../primitives.js';
import { parseWith, type ParseResult } from '../validation.js';
import {
  AbsolutePath,
  IntentSource,
  ListenAddress,
  agentCommonFields,
  listenAddressesClash,
} from './common.js';

/** Where agent-netns reads its configuration. */
export const AGENT_NETNS_CONFIG_PATH = '/etc/fabrik/agent-netns.yaml';

/** The two ways agent-netns wires VRFs (the template sets of @fabrik/frr). */
export const AGENT_NETNS_MODES = ['netns', 'vrf-ibgp'] as const;

/** agent-netns's configuration file (YAML): the node's routing identity, its sources and its endpoints. */
export const AgentNetnsConfig = z
  .object({
    ...agentCommonFields,
    mode: z.enum(AGENT_NETNS_MODES).default('netns'),
    asn: BgpAsn,
    routerId: z.ipv4(),
    vtepIp: z.ipv4(),
    hbrVrf: VrfName.default('hbr'),
    trunk: InterfaceName.default('tr'),
    underlay: z
      .object({ neighbors: z.array(UnderlayNeighbor).max(64).default([]) })
      .strict()
      .default({ neighbors: [] }),
    /** The namespace to manage; absent: the agent's own (as in the HBR container). */
    netns: NetnsName.optional(),
    frr: z
      .object({
        /** FRR's pathspace (`-N NAME`); absent: `netns`'s name (agent-netns refuses neither being set). */
        pathspace: NetnsName.optional(),
        reloadTimeoutMs: z.number().int().min(1000).max(600_000).default(30_000),
        vniWaitTimeoutMs: z.number().int().min(100).max(600_000).default(10_000),
      })
      .strict()
      .default({ reloadTimeoutMs: 30_000, vniWaitTimeoutMs: 10_000 }),
    source: IntentSource,
    /** With a file source: the netns section of NodeNetworkStatus, written atomically for agent-host. */
    statusFile: AbsolutePath.optional(),
    /**
     * The status file is rewritten (a fresh lastUpdate) at least this often, also when nothing
     * changed: agent-host's relay takes an older one for a stopped agent (relay.netnsMaxAgeSeconds).
     */
    statusHeartbeatSeconds: z.number().int().min(1).max(3600).default(20),
    stateDir: AbsolutePath.default('/var/lib/fabrik/agent-netns'),
    /** Loopback by default: /metrics has no authentication, and the HBR holds the uplinks. */
    metricsAddress: ListenAddress.default('127.0.0.1:9721'),
    healthAddress: ListenAddress.default('127.0.0.1:9722'),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.statusFile !== undefined && c.source.kind !== 'file') {
      ctx.addIssue({
        code: 'custom',
        path: ['statusFile'],
        message: 'is for a file source only (with kind kubernetes the agent writes NodeNetworkStatus itself)',
      });
    }
    if (listenAddressesClash(c.metricsAddress, c.healthAddress)) {
      ctx.addIssue({
        code: 'custom',
        path: ['healthAddress'],
        message: `must not take metricsAddress's socket (${c.metricsAddress})`,
      });
    }
    // The rules between the neighbours' fields (exactly one of address or interface, no
    // duplicates, local-as only for eBGP...) live with the routing intent: run them on the part
    // of it this file holds, so a bad neighbour fails at load, not at the first reconcile.
    const identity = {
      asn: c.asn,
      routerId: c.routerId,
      vtepIp: c.vtepIp,
      hbrVrf: c.hbrVrf,
      underlay: c.underlay,
    };
    // A neighbour that fails its own rules was reported by its field already.
    const invalid = new Set(
      c.underlay.neighbors.flatMap((n, i) => (UnderlayNeighbor.safeParse(n).success ? [] : [i])),
    );
    for (const issue of FrrIntentSchema.safeParse(identity).error?.issues ?? []) {
      if (issue.path[0] === 'underlay' && !invalid.has(Number(issue.path[2])))
        ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    }
  });
export type AgentNetnsConfig = z.infer<typeof AgentNetnsConfig>;
/** What a config file may contain (defaults still optional). */
export type AgentNetnsConfigInput = z.input<typeof AgentNetnsConfig>;

/** Validates agent-netns's config (parsed YAML) and applies defaults; errors name the field. */
export function parseAgentNetnsConfig(input: unknown): ParseResult<AgentNetnsConfig> {
  return parseWith(AgentNetnsConfig, () => 'AgentNetnsConfig', input);
}
