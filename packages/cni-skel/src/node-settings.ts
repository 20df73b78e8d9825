import {
  CNI_NODE_SETTINGS_ENV,
  CNI_NODE_SETTINGS_PATH,
  NodeLocalPath,
  parseCniNodeSettings,
  type CniNodeSettings,
} from '@fabrik/api';
import { parseConfigText, readConfigText } from './config-file.js';
import { CniError, CniErrorCode } from './errors.js';

/** The settings of this node and the file they came from (for messages). */
export interface NodeSettings {
  readonly path: string;
  readonly settings: CniNodeSettings;
}

/**
 * The last valid settings of each file, by the exact text they were parsed from: a process that runs
 * many verbs (agent-host's CNI socket) reads the file every time, as the plugin does, but parses
 * and validates it (the YAML parser, the schema: milliseconds per verb) only when it changed.
 */
const parsedSettings = new Map<
  string,
  { readonly text: string | undefined; readonly settings: NodeSettings }
>();
const MAX_PARSED_SETTINGS = 16;

/**
 * Reads the node settings: the file named by FABRIK_CNI_CONFIG, else
 * /etc/cni/net.d/fabrik.d/config.yaml. A missing file means every default. An unreadable or
 * invalid file is code 7 naming the file and the field; a FABRIK_CNI_CONFIG that is not a usable
 * path is code 4.
 */
export async function loadNodeSettings(
  env: Readonly<Record<string, string | undefined>>,
): Promise<NodeSettings> {
  const fromEnv = env[CNI_NODE_SETTINGS_ENV];
  const path = fromEnv || CNI_NODE_SETTINGS_PATH;
  if (fromEnv) {
    const checked = NodeLocalPath.safeParse(fromEnv);
    if (!checked.success)
      throw new CniError(
        CniErrorCode.invalidEnvironment,
        `${CNI_NODE_SETTINGS_ENV} ${JSON.stringify(fromEnv)} ${checked.error.issues[0]?.message ?? 'is invalid'}`,
      );
  }
  const unreadable = (e: unknown) =>
    new CniError(
      CniErrorCode.invalidNetworkConfig,
      `invalid node settings ${path}: ${(e as Error).message}`,
      undefined,
      { cause: e },
    );
  const text = await readConfigText(path).catch((e: unknown) => {
    throw unreadable(e);
  });
  const known = parsedSettings.get(path);
  if (known && known.text === text) return known.settings;
  let doc: unknown;
  try {
    doc = (text === undefined ? undefined : await parseConfigText(text)) ?? {};
  } catch (e) {
    throw unreadable(e);
  }
  const parsed = parseCniNodeSettings(doc);
  if (!parsed.ok) {
    const [first] = parsed.error.issues;
    throw new CniError(
      CniErrorCode.invalidNetworkConfig,
      `invalid node settings ${path}: ${first?.path || '(file)'}: ${first?.message ?? 'invalid'}`,
      parsed.error.message,
    );
  }
  const settings = { path, settings: parsed.value };
  // A few files at most (the default and a FABRIK_CNI_CONFIG or two); bounded all the same.
  if (parsedSettings.size >= MAX_PARSED_SETTINGS) parsedSettings.clear();
  parsedSettings.set(path, { text, settings });
  return settings;
}
