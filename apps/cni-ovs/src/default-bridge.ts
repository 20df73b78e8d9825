import { readFile } from 'node:fs/promises';
import { AGENT_HOST_CONFIG_PATH, AgentHostConfig } from '@fabrik/api';
import { CniError, CniErrorCode } from './skel/index.js';
import type { NetConf } from './config.js';

/** Environment variable that overrides {@link AGENT_HOST_CONFIG_PATH} (the config's `agentHostConfig` wins over both). */
export const AGENT_HOST_CONFIG_ENV = 'FABRIK_AGENT_HOST_CONFIG';

/**
 * The bridge to attach to: `bridge` from the net conf, else the first of the host agent's
 * `secondaryNetwork.ovsBridges`. Code 7 names `bridge` when neither gives one.
 */
export async function resolveBridge(
  conf: NetConf,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string> {
  if (conf.bridge) return conf.bridge;
  const path = conf.agentHostConfig ?? env[AGENT_HOST_CONFIG_ENV] ?? AGENT_HOST_CONFIG_PATH;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new CniError(
      CniErrorCode.invalidNetworkConfig,
      `invalid network config: bridge: not set, and the host agent config ${path} cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`,
      undefined,
      { cause: e },
    );
  }
  // yaml is needed only on this path: load it lazily to keep the plugin's start-up short.
  const { parse } = await import('yaml');
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new CniError(
      CniErrorCode.invalidNetworkConfig,
      `invalid network config: bridge: not set, and ${path} is not valid YAML: ${(e as Error).message}`,
      undefined,
      { cause: e },
    );
  }
  const parsed = AgentHostConfig.safeParse(doc ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CniError(
      CniErrorCode.invalidNetworkConfig,
      `invalid network config: bridge: not set, and ${path} is invalid at ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`,
    );
  }
  const first = parsed.data.secondaryNetwork?.ovsBridges[0]?.bridgeName;
  if (!first) {
    throw new CniError(
      CniErrorCode.invalidNetworkConfig,
      `invalid network config: bridge: not set, and ${path} lists no secondaryNetwork.ovsBridges`,
    );
  }
  return first;
}
