import { FabrikError } from '@fabrik/api/errors';
import { readRegularFile } from './bounded-fs.js';

/** A config file that is not valid YAML. */
export class ConfigSyntaxError extends FabrikError<'CONFIG_SYNTAX'> {
  override readonly name = 'ConfigSyntaxError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('CONFIG_SYNTAX', message, options);
  }
}

/** Node-local config files are a few lines; anything much larger is not one. */
const MAX_CONFIG_BYTES = 256 * 1024;

/**
 * Reads a node-local YAML config file (bounded in time and size, see bounded-fs.ts) and returns
 * its document, or undefined when the file does not exist. Throws FsStepError when it cannot be
 * read and {@link ConfigSyntaxError} when it is not YAML (see {@link parseConfigText}).
 */
export async function readConfigFile(path: string): Promise<unknown> {
  const text = await readConfigText(path);
  return text === undefined ? undefined : parseConfigText(text);
}

/** The text of a node-local config file (bounded in time and size), or undefined when it does not exist. */
export function readConfigText(path: string): Promise<string | undefined> {
  return readRegularFile(path, MAX_CONFIG_BYTES);
}

/**
 * A config file's document. A JSON file (JSON is YAML 1.2) is parsed without loading the YAML
 * parser, which keeps the plugin's start-up short. Throws {@link ConfigSyntaxError}.
 */
export async function parseConfigText(text: string): Promise<unknown> {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    /* not JSON: YAML */
  }
  const { parse } = await import('yaml');
  try {
    // An empty file is an empty document.
    return (parse(text, { maxAliasCount: 100 }) as unknown) ?? {};
  } catch (e) {
    throw new ConfigSyntaxError(`not valid YAML: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * What `derive` makes of a config file's text, kept per file while the text stays the same: a
 * process that serves many verbs (agent-host's CNI socket) reads its config files every time, as
 * the plugin does, and so sees every change at once, but parses and validates them (the YAML
 * parser, a schema: milliseconds a verb) only when they changed. Failures are not kept. At most
 * `maxFiles` files (they are few: the node settings, the host agent config).
 */
export function derivedFromText<T>(
  derive: (path: string, text: string | undefined) => Promise<T>,
  maxFiles = 16,
): (path: string, text: string | undefined) => Promise<T> {
  const kept = new Map<string, { readonly text: string | undefined; readonly value: T }>();
  return async (path, text) => {
    const known = kept.get(path);
    if (known && known.text === text) return known.value;
    const value = await derive(path, text);
    if (kept.size >= maxFiles) kept.clear();
    kept.set(path, { text, value });
    return value;
  };
}
