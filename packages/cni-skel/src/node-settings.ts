import {
  CNI_NODE_SETTINGS_ENV,
  CNI_NODE_SETTINGS_PATH,
  NodeLocalPath,
  parseCniNodeSettings,
  type CniNodeSettings,
} from '@fabrik/api';
import { derivedFromText, parseConfigText, readConfigText } from './config-file.js';
import { CniError, CniErrorCode } from './errors.js';

/** The settings of this node and the file they came from (for messages). */
export interface NodeSettings {
  readonly path: string;
  readonly settings: CniNodeSettings;
}

const unreadable = (path: string, e: unknown) =>
  new CniError(
    CniErrorCode.invalidNetworkConfig,
    `invalid node settings ${path}: ${(e as Error).message}`,
    undefined,
    { cause: e },
  );

/** The settings in a file's text, parsed and validated again only when the text changed. */
const parsedSettings = derivedFromText(async (path, text): Promise<NodeSettings> => {
  let doc: unknown;
  try {
    doc = (text === undefined ? undefined : await parseConfigText(text)) ?? {};
  } catch (e) {
    throw unreadable(path, e);
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
  return { path, settings: parsed.value };
});

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
  const text = await readConfigText(path).catch((e: unknown) => {
    throw unreadable(path, e);
  });
  return parsedSettings(path, text);
}
