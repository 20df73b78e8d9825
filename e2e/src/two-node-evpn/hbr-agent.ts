import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import type { AgentNetnsConfigInput, NodeNetworkStatusSection } from '@fabrik/api';
import { writeIntentFile, type IntentObject } from '@fabrik/agent-runtime';
import { runCommand } from '@fabrik/netcore';
import { startAgentProcess, type AgentProcess } from '@fabrik/testkit';
import { LAB_NETWORKS, LAB_VRF, type LabNode } from './topology.js';

// The HBR of a lab node is set up by agent-netns itself, run as its container runs it: the built
// `fabrik-agent-netns`, reading this node's VRF and Layer2Network objects from a file (what
// agent-host's relay writes) and reporting to a status file.

const AGENT_BIN = join(
  dirname(createRequire(import.meta.url).resolve('@fabrik/agent-netns/package.json')),
  'bin/fabrik-agent-netns.mjs',
);
const API_VERSION = 'network.fabrik.dev/v1alpha1';

/** The lab's objects in their CRD shape: VRF red, VLAN 100 in red, VLAN 200 in hbr. */
export function labObjects(): IntentObject[] {
  return [
    {
      apiVersion: API_VERSION,
      kind: 'VRF',
      metadata: { name: LAB_VRF.name, generation: 1 },
      spec: { vni: LAB_VRF.vni, redistribute: { connected: true } },
    },
    ...LAB_NETWORKS.map((net, i) => ({
      apiVersion: API_VERSION,
      kind: 'Layer2Network',
      metadata: { name: `vlan${net.vlan}`, generation: 1 },
      spec: { vni: net.vni, vlan: net.vlan, ...(i === 0 ? { vrf: LAB_VRF.name } : {}) },
    })),
  ];
}

export interface HbrAgent {
  readonly process: AgentProcess;
  /** `fabrik-agent-netns plan`: its exit code (0: in sync) and output. */
  plan(): Promise<{ code: number; output: string }>;
  /** SIGTERM: the agent stops and leaves the data plane as it is. */
  stop(): Promise<void>;
}

/** Starts agent-netns for `node` with its files in `dir`; resolves once its status says applied. */
export async function startHbrAgent(node: LabNode, dir: string, timeoutMs = 300_000): Promise<HbrAgent> {
  const files = {
    config: join(dir, 'agent-netns.yaml'),
    intent: join(dir, 'relay', 'intent.yaml'),
    status: join(dir, 'relay', 'status.json'),
  };
  const config: AgentNetnsConfigInput = {
    nodeName: `node-${node.id}`,
    asn: 65000,
    routerId: node.vtep,
    vtepIp: node.vtep,
    underlay: { neighbors: [{ address: node.peerVtep, remoteAs: 'internal' }] },
    netns: node.hbr,
    frr: { pathspace: node.hbr },
    source: { kind: 'file', path: files.intent },
    statusFile: files.status,
    stateDir: join(dir, 'agent-netns'),
    metricsAddress: '127.0.0.1:0',
    healthAddress: '127.0.0.1:0',
  };
  await writeFile(files.config, stringify(config));
  const objects = labObjects();
  await writeIntentFile(files.intent, objects);
  const process_ = startAgentProcess({
    command: [process.execPath, AGENT_BIN, 'run', '--config', files.config],
    healthAddress: '127.0.0.1:0',
  });
  const until = Date.now() + timeoutMs;
  for (;;) {
    const status = await readFile(files.status, 'utf8').then(
      (t) => JSON.parse(t) as NodeNetworkStatusSection,
      () => undefined,
    );
    const applied = status?.appliedGenerations?.layer2Networks ?? {};
    if (
      status?.configStatus === 'provisioned' &&
      objects.every((o) => o.kind !== 'Layer2Network' || o.metadata.name in applied)
    )
      break;
    if (Date.now() > until)
      throw new Error(
        `agent-netns on node ${node.id}: not provisioned within ${timeoutMs} ms: ${JSON.stringify(status)}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    process: process_,
    async plan() {
      try {
        const { stdout } = await runCommand(process.execPath, [AGENT_BIN, 'plan', '--config', files.config], {
          timeoutMs: 300_000,
        });
        return { code: 0, output: stdout };
      } catch (e) {
        const err = e as { exitCode?: number; stdout?: string; stderr?: string };
        if (typeof err.exitCode !== 'number') throw e;
        return { code: err.exitCode, output: `${err.stdout ?? ''}${err.stderr ?? ''}` };
      }
    },
    async stop() {
      await process_.stop();
    },
  };
}
