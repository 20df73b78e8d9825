import { ConfigError, loadConfig, withSecretNamespace } from '@fabrik/agent-runtime';
import { AgentHostConfig } from '@fabrik/api';

/** agent-host's configuration with the node's name resolved (the file's, else env NODE_NAME). */
export type HostConfig = AgentHostConfig & { readonly nodeName: string };

/** Reads and validates the config file; ConfigError names every field at fault (the CLI exits 2). */
export async function loadHostConfig(
  path: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<HostConfig> {
  const config = await loadConfig(path, AgentHostConfig, { envDefaults: { nodeName: 'NODE_NAME' }, env });
  if (config.nodeName === undefined)
    throw new ConfigError(path, [
      { path: 'nodeName', message: 'required (in the file or as env NODE_NAME)' },
    ]);
  // A Kubernetes source reads the Secrets of one namespace (the relay's BGPPeering passwords).
  return { ...config, source: withSecretNamespace(config.source, env, path) } as HostConfig;
}
