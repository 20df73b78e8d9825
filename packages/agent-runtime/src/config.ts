import { readFile } from 'node:fs/promises';
import { LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { DEFAULT_SECRET_NAMESPACE, NamespaceName, type IntentSource } from '@fabrik/api';
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

/**
 * `source` with the namespace of the Secrets a Kubernetes source reads (BGPPeering's
 * passwordSecretRef) filled in: the config's `source.secretNamespace`, else env POD_NAMESPACE (the
 * agent's own namespace, from the Downward API), else `fabrik-system`. A file source is returned
 * as it is (it reads no Secrets). Throws {@link ConfigError} naming `file` when POD_NAMESPACE is
 * no namespace name.
 */
export function withSecretNamespace<S extends IntentSource>(
  source: S,
  env: NodeJS.ProcessEnv,
  file: string,
): S {
  if (source.kind !== 'kubernetes' || source.secretNamespace !== undefined) return source;
  const fromEnv = env['POD_NAMESPACE'];
  if (fromEnv === undefined || fromEnv === '')
    return { ...source, secretNamespace: DEFAULT_SECRET_NAMESPACE };
  const parsed = NamespaceName.safeParse(fromEnv);
  if (!parsed.success)
    throw new ConfigError(file, [
      {
        path: 'source.secretNamespace',
        message: `absent, and env POD_NAMESPACE ${parsed.error.issues[0]?.message ?? 'is no namespace name'}`,
      },
    ]);
  return { ...source, secretNamespace: parsed.data };
}
