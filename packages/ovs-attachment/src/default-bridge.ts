import { parseAgentHostConfig } from '@fabrik/api';
import { derivedFromText, parseConfigText, readConfigText, CniError, CniErrorCode } from '@fabrik/cni-skel';

/**
 * The bridge to attach to: `bridge` from the network config, else the first of the host agent's
 * `secondaryNetwork.ovsBridges` in `agentHostConfig` (a node setting). Code 7 names `bridge` when
 * neither gives one.
 */
export async function resolveBridge(bridge: string | undefined, agentHostConfig: string): Promise<string> {
  if (bridge) return bridge;
  const text = await readConfigText(agentHostConfig).catch((e: unknown) => {
    throw noBridge(agentHostConfig, `cannot be read: ${(e as Error).message}`, e);
  });
  return firstBridgeOf(agentHostConfig, text);
}

const noBridge = (agentHostConfig: string, why: string, cause?: unknown) =>
  new CniError(
    CniErrorCode.invalidNetworkConfig,
    `invalid network config: bridge: not set, and the host agent config ${agentHostConfig} ${why}`,
    undefined,
    { cause },
  );

/**
 * The first `secondaryNetwork.ovsBridges` entry of a host agent config's text, parsed and validated
 * again only when the text changed (agent-host runs an ADD per Pod interface; the config's schema
 * costs milliseconds).
 */
const firstBridgeOf = derivedFromText(async (agentHostConfig, text): Promise<string> => {
  if (text === undefined) throw noBridge(agentHostConfig, 'does not exist');
  let doc: unknown;
  try {
    doc = await parseConfigText(text);
  } catch (e) {
    throw noBridge(agentHostConfig, `cannot be read: ${(e as Error).message}`, e);
  }
  const parsed = parseAgentHostConfig(doc);
  if (!parsed.ok) {
    const [issue] = parsed.error.issues;
    throw noBridge(agentHostConfig, `is invalid at ${issue?.path ?? ''}: ${issue?.message ?? ''}`);
  }
  const first = parsed.value.secondaryNetwork.ovsBridges[0]?.bridgeName;
  if (!first) throw noBridge(agentHostConfig, 'lists no secondaryNetwork.ovsBridges');
  return first;
});
