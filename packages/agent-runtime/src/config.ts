import { readFile } from 'node:fs/promises';
import { LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { ConfigError, fieldPath } from './errors.js';

export interface LoadConfigOptions {
  /** Where environment defaults come from. Default: `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Fields filled from the environment when the file leaves them out: field path (dotted) ->
   * variable name, for example `{ nodeName: 'NODE_NAME' }`. A value in the file wins.
   */
  readonly envDefaults?: Readonly<Record<string, string>>;
}

/**
 * Reads a YAML configuration file and validates it with the agent's zod schema (defaults applied).
 * Throws {@link ConfigError} naming the file and every field at fault (the CLI exits 2 with it).
 */
export async function loadConfig<S extends z.ZodType>(
  file: string,
  schema: S,
  options: LoadConfigOptions = {},
): Promise<z.output<S>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message;
    throw new ConfigError(file, [{ path: '(file)', message: why }], { cause: e });
  }
  return parseConfigText(text, file, schema, options);
}

/** The pure half of {@link loadConfig}: YAML text -> validated configuration. */
export function parseConfigText<S extends z.ZodType>(
  text: string,
  file: string,
  schema: S,
  options: LoadConfigOptions = {},
): z.output<S> {
  const lines = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, lineCounter: lines });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      file,
      doc.errors.map((e) => ({
        path: '(file)',
        message: `line ${lines.linePos(e.pos[0]).line}: ${e.message.split('\n')[0]}`,
      })),
    );
  }
  const raw: unknown = doc.toJS() ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new ConfigError(file, [{ path: '(root)', message: 'must be a mapping of fields' }]);
  const input = withEnvDefaults(
    raw as Record<string, unknown>,
    options.env ?? process.env,
    options.envDefaults ?? {},
  );
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  // Issues name paths and rules; the rejected values stay out (a config may hold secrets).
  throw new ConfigError(
    file,
    result.error.issues.map((i) => ({ path: fieldPath(i.path), message: i.message })),
  );
}

function withEnvDefaults(
  input: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  defaults: Readonly<Record<string, string>>,
): Record<string, unknown> {
  const out = structuredClone(input);
  for (const [path, variable] of Object.entries(defaults)) {
    const value = env[variable];
    if (value !== undefined && value !== '') setIfAbsent(out, path.split('.'), value);
  }
  return out;
}

/** Sets `keys` in `node` to `value` unless a value is there; a non-mapping on the way is left to the schema. */
function setIfAbsent(node: Record<string, unknown>, keys: readonly string[], value: string): void {
  const [key, ...rest] = keys;
  if (key === undefined) return;
  if (rest.length === 0) {
    if (node[key] === undefined) node[key] = value;
    return;
  }
  if (node[key] === undefined) node[key] = {};
  const next = node[key];
  if (typeof next === 'object' && next !== null && !Array.isArray(next))
    setIfAbsent(next as Record<string, unknown>, rest, value);
}
