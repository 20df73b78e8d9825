import { parseAgentHostConfig } from '@fabrik/api';
import { readConfigFile, CniError, CniErrorCode } from '@fabrik/cni-skel';

/**
 * The bridge to attach to: `bridge` from the network config, else the first of the host agent's
 * `secondaryNetwork.ovsBridges` in `agentHostConfig` (a node setting). Code 7 names `bridge` when
 * neither gives one.
 */
export async function resolveBridge(bridge: string | undefined, agentHostConfig: string): Promise<string> {
  if (bridge) return bridge;
  const fail = (why: string, cause?: unknown) =>
    new CniError(
      CniErrorCode.invalidNetworkConfig,
      `invalid network config: bridge: not set, and the host agent config ${agentHostConfig} ${why}`,
      undefined,
      { cause },
    );
  let doc: unknown;
  try {
    doc = await readConfigFile(agentHostConfig);
  } catch (e) {
    throw fail(`cannot be read: ${(e as Error).message}`, e);
  }
  if (doc === undefined) throw fail('does not exist');
  const parsed = parseAgentHostConfig(doc);
  if (!parsed.ok) {
    const [issue] = parsed.error.issues;
    throw fail(`is invalid at ${issue?.path ?? ''}: ${issue?.message ?? ''}`);
  }
  const first = parsed.value.secondaryNetwork.ovsBridges[0]?.bridgeName;
  if (!first) throw fail('lists no secondaryNetwork.ovsBridges');
  return first;
}
