import type { KubeConfig } from '@kubernetes/client-node';
import { NODE_NETWORK_CONFIG_RESOURCE, parseNodeNetworkConfig, type NodeNetworkConfig } from '@fabrik/api';
import { customObjects } from '@fabrik/kube';

// Test doubles of the node agents: for each NodeNetworkConfig, both agents' status sections are
// written as a node's agents would, by what the node is told to do:
//   applies  report spec.revision applied (after `applyDelayMs`), heartbeat fresh
//   fails    report the revision as invalid (objectErrors naming a Layer2Network), keep the last one
//   stalls   keep reporting the last applied revision, heartbeat fresh
//   stale    report spec.revision applied, but with a heartbeat an hour old
//   dies     write nothing more
// One loop lists every NodeNetworkConfig and writes the sections that differ (or whose heartbeat
// is older than `heartbeatEveryMs`).

export type AgentBehaviour = 'applies' | 'fails' | 'stalls' | 'stale' | 'dies';

export interface SimulatedAgents {
  /** What a node's agents do from now on (default: applies). */
  set(node: string, behaviour: AgentBehaviour): void;
  stop(): Promise<void>;
}

interface Section {
  appliedRevision?: string;
  configStatus: 'provisioned' | 'invalid';
  heartbeat: string;
  objectErrors?: { kind: 'Layer2Network'; name: string; field: string; message: string }[];
}

export function startSimulatedAgents(
  kc: KubeConfig,
  options: { heartbeatEveryMs: number; pollMs?: number; applyDelayMs?: number },
): SimulatedAgents {
  const configs = customObjects(kc, NODE_NETWORK_CONFIG_RESOURCE, (raw: unknown) => {
    const parsed = parseNodeNetworkConfig(raw);
    if (!parsed.ok) throw parsed.error;
    return parsed.value;
  });
  const behaviours = new Map<string, AgentBehaviour>();
  /** When each node's agents first saw its current spec.revision. */
  const seen = new Map<string, { revision: string; at: number }>();
  let running = true;

  function sectionFor(c: NodeNetworkConfig, now: number): Section | undefined {
    const behaviour = behaviours.get(c.metadata.name) ?? 'applies';
    const last = c.status?.host?.appliedRevision;
    const heartbeat = new Date(now).toISOString();
    const first = seen.get(c.metadata.name);
    if (first?.revision !== c.spec.revision)
      seen.set(c.metadata.name, { revision: c.spec.revision, at: now });
    const due = now - (seen.get(c.metadata.name)?.at ?? now) >= (options.applyDelayMs ?? 0);
    switch (behaviour) {
      case 'dies':
        return undefined;
      case 'stale':
        return {
          appliedRevision: c.spec.revision,
          configStatus: 'provisioned',
          heartbeat: new Date(now - 3_600_000).toISOString(),
        };
      case 'stalls':
        return { ...(last && { appliedRevision: last }), configStatus: 'provisioned', heartbeat };
      case 'fails': {
        const message = 'mtu 9000 is above the trunk MTU 1500';
        const objectErrors = [{ kind: 'Layer2Network' as const, name: 'web', field: 'spec.mtu', message }];
        return { ...(last && { appliedRevision: last }), configStatus: 'invalid', heartbeat, objectErrors };
      }
      case 'applies':
        if (!due) return { ...(last && { appliedRevision: last }), configStatus: 'provisioned', heartbeat };
        return { appliedRevision: c.spec.revision, configStatus: 'provisioned', heartbeat };
    }
  }

  const changed = (c: NodeNetworkConfig, next: Section, now: number): boolean => {
    const host = c.status?.host;
    if (host === undefined) return true;
    if (host.appliedRevision !== next.appliedRevision || host.configStatus !== next.configStatus) return true;
    if ((host.objectErrors?.length ?? 0) !== (next.objectErrors?.length ?? 0)) return true;
    return now - Date.parse(host.heartbeat) >= options.heartbeatEveryMs && next.heartbeat !== host.heartbeat;
  };

  const loop = (async () => {
    while (running) {
      const now = Date.now();
      const { items } = await configs.list();
      const writes = items.flatMap((c) => {
        const next = sectionFor(c, now);
        return next !== undefined && changed(c, next, now) ? [{ name: c.metadata.name, next }] : [];
      });
      for (let i = 0; i < writes.length; i += 16)
        await Promise.all(
          writes.slice(i, i + 16).map((w) => {
            // null removes objectErrors left by an earlier failure (a merge patch keeps absent fields)
            const section = { ...w.next, objectErrors: w.next.objectErrors ?? null };
            return configs.patchStatus(
              w.name,
              { status: { host: section, netns: section } },
              { type: 'merge' },
            );
          }),
        );
      await new Promise((done) => setTimeout(done, options.pollMs ?? 100));
    }
  })();

  return {
    set: (node, behaviour) => behaviours.set(node, behaviour),
    stop: async () => {
      running = false;
      await loop;
    },
  };
}
