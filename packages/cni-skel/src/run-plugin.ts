import { CniError, CniErrorCode, toErrorJson } from './errors.js';
import { toVersionedResult, type CniResult } from './result.js';
import { SPEC_VERSIONS, compareVersions, negotiateVersion, specHas } from './versions.js';

/** The parsed CNI_* environment and the raw config of one invocation. */
export interface CmdArgs {
  readonly command: CniCommand;
  /** CNI_CONTAINERID ('' for GC and STATUS). */
  readonly containerId: string;
  /** CNI_NETNS: a path; '' when the runtime gave none (allowed for DEL). */
  readonly netns: string;
  /** CNI_IFNAME ('' for GC and STATUS). */
  readonly ifname: string;
  /** CNI_ARGS, unparsed (`K=V;K2=V2`). */
  readonly args: string;
  /** CNI_PATH split on ':'. */
  readonly path: readonly string[];
  /** The config exactly as received, for delegation to IPAM plugins. */
  readonly stdinData: string;
  /** The config decoded as JSON (an object). */
  readonly config: Record<string, unknown>;
  /** The spec version this call speaks (negotiated from `cniVersion`/`cniVersions`). */
  readonly cniVersion: string;
}

export type CniCommand = 'ADD' | 'DEL' | 'CHECK' | 'GC' | 'STATUS' | 'VERSION';

/** One function per verb; VERSION is answered by the skeleton. */
export interface PluginFuncs {
  add(args: CmdArgs): Promise<CniResult>;
  del(args: CmdArgs): Promise<void>;
  check(args: CmdArgs): Promise<void>;
  gc(args: CmdArgs): Promise<void>;
  status(args: CmdArgs): Promise<void>;
}

export interface PluginOptions {
  /** Spec versions the plugin speaks. Default: every version of {@link SPEC_VERSIONS}. */
  readonly versions?: readonly string[];
}

/** Where the plugin's I/O goes: passed in so that tests need no real process environment. */
export interface PluginIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: string;
  readonly stdout: (text: string) => void;
}

const REQUIRED_ENV: Record<Exclude<CniCommand, 'VERSION'>, readonly string[]> = {
  ADD: ['CNI_CONTAINERID', 'CNI_NETNS', 'CNI_IFNAME', 'CNI_PATH'],
  CHECK: ['CNI_CONTAINERID', 'CNI_NETNS', 'CNI_IFNAME', 'CNI_PATH'],
  DEL: ['CNI_CONTAINERID', 'CNI_IFNAME', 'CNI_PATH'],
  GC: ['CNI_PATH'],
  STATUS: ['CNI_PATH'],
};

// SPEC.md: "alphanumeric, optionally followed by alphanumerics, underscore, dot or hyphen".
const CONTAINER_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
/** Longest CNI_CONTAINERID accepted: ids become file names and ownership marks (runtimes use 64). */
export const MAX_CONTAINER_ID_LENGTH = 128;
/** Deepest nesting of arrays and objects accepted in a network config (real ones nest about 5). */
export const MAX_CONFIG_DEPTH = 64;

/**
 * Runs one CNI invocation: reads the environment and config from `io`, calls the verb's function,
 * prints its result converted to the config's spec version (or the error JSON), and resolves with
 * the process exit code (0 or 1). Equivalent to `skel.PluginMainFuncs` of libcni.
 */
export async function runPlugin(funcs: PluginFuncs, options: PluginOptions, io: PluginIo): Promise<number> {
  const versions = options.versions ?? SPEC_VERSIONS;
  let cniVersion = errorVersion(io.stdin, versions);
  try {
    const command = parseCommand(io.env['CNI_COMMAND']);
    if (command === 'VERSION') {
      io.stdout(
        JSON.stringify({
          cniVersion: tryRequestedVersion(io.stdin) ?? newest(versions),
          supportedVersions: versions,
        }),
      );
      return 0;
    }
    let validated: Awaited<ReturnType<typeof validateInput>>;
    try {
      validated = await validateInput(command, io, versions);
    } catch (e) {
      // What ADD refuses here identifies no attachment it could have created: DEL has nothing to
      // delete and succeeds, or the runtime would retry it forever.
      if (command === 'DEL') return 0;
      throw e;
    }
    const { containerId, ifname, config } = validated;
    cniVersion = validated.cniVersion;
    if (command === 'CHECK' && !specHas(cniVersion, 'check')) {
      throw new CniError(
        CniErrorCode.incompatibleVersion,
        `config version ${cniVersion} does not allow CHECK`,
      );
    }
    if (
      (command === 'GC' || command === 'STATUS') &&
      !specHas(cniVersion, command === 'GC' ? 'gc' : 'status')
    ) {
      throw new CniError(
        CniErrorCode.incompatibleVersion,
        `config version ${cniVersion} does not allow ${command}`,
      );
    }
    const args: CmdArgs = {
      command,
      containerId,
      netns: io.env['CNI_NETNS'] ?? '',
      ifname,
      args: io.env['CNI_ARGS'] ?? '',
      path: (io.env['CNI_PATH'] ?? '').split(':').filter(Boolean),
      stdinData: io.stdin,
      config,
      cniVersion,
    };
    switch (command) {
      case 'ADD':
        io.stdout(JSON.stringify(toVersionedResult(await funcs.add(args), cniVersion)));
        break;
      case 'DEL':
        await funcs.del(args);
        break;
      case 'CHECK':
        await funcs.check(args);
        break;
      case 'GC':
        await funcs.gc(args);
        break;
      case 'STATUS':
        await funcs.status(args);
        break;
    }
    return 0;
  } catch (e) {
    io.stdout(JSON.stringify(toErrorJson(cniVersion, e)));
    return 1;
  }
}

/**
 * The error JSON of an invocation that failed before its verb could run (the config is not even
 * looked at), written like {@link runPlugin} writes its errors.
 */
export function invocationErrorJson(stdin: string, options: PluginOptions, e: unknown): string {
  return JSON.stringify(toErrorJson(errorVersion(stdin, options.versions ?? SPEC_VERSIONS), e));
}

const newest = (versions: readonly string[]): string => [...versions].sort(compareVersions).at(-1) ?? '1.1.0';

/** Errors are written in the config's version whenever it can be read at all, else the newest. */
function errorVersion(stdin: string, versions: readonly string[]): string {
  const requested = tryRequestedVersion(stdin);
  return requested && versions.includes(requested) ? requested : newest(versions);
}

function parseCommand(value: string | undefined): CniCommand {
  if (!value)
    throw new CniError(
      CniErrorCode.invalidEnvironment,
      'required environment variable CNI_COMMAND is not set',
    );
  if (['ADD', 'DEL', 'CHECK', 'GC', 'STATUS', 'VERSION'].includes(value)) return value as CniCommand;
  throw new CniError(CniErrorCode.invalidEnvironment, `unknown CNI_COMMAND ${JSON.stringify(value)}`);
}

/** The CNI_* variables and the config of a command, checked before the plugin sees them. */
async function validateInput(
  command: Exclude<CniCommand, 'VERSION'>,
  io: PluginIo,
  versions: readonly string[],
): Promise<{ containerId: string; ifname: string; config: Record<string, unknown>; cniVersion: string }> {
  for (const name of REQUIRED_ENV[command]) {
    if (!io.env[name] && !(name === 'CNI_NETNS' && command === 'DEL')) {
      throw new CniError(CniErrorCode.invalidEnvironment, `required environment variable ${name} is not set`);
    }
  }
  const containerId = io.env['CNI_CONTAINERID'] ?? '';
  if (containerId && (!CONTAINER_ID.test(containerId) || containerId.length > MAX_CONTAINER_ID_LENGTH)) {
    throw new CniError(
      CniErrorCode.invalidEnvironment,
      `CNI_CONTAINERID ${JSON.stringify(abbreviate(containerId))} is invalid: 1-${MAX_CONTAINER_ID_LENGTH} characters, a letter or digit, then letters, digits, _ . -`,
    );
  }
  const ifname = io.env['CNI_IFNAME'] ?? '';
  if (ifname) {
    // Loaded here, not at start-up: VERSION, called before every ADD and DEL, needs no schema. A
    // module of its own, so that the bundle keeps only the rule, not all of @fabrik/api.
    const problem = (await import('./interface-name.js')).ifnameProblem(ifname);
    if (problem)
      throw new CniError(
        CniErrorCode.invalidEnvironment,
        `CNI_IFNAME ${JSON.stringify(abbreviate(ifname))} is invalid: ${problem}`,
      );
  }
  const config = decodeConfig(io.stdin);
  return { containerId, ifname, config, cniVersion: pickVersion(config, versions) };
}

/** A value to quote in a message, cut to a readable length. */
function abbreviate(value: string): string {
  return value.length > 80 ? `${value.slice(0, 80)}...` : value;
}

function decodeConfig(stdin: string): Record<string, unknown> {
  // JSON.parse copes with any depth, but code that walks the result recursively (JSON.stringify,
  // schema checks) overflows the stack on a config nested thousands deep.
  const depth = jsonDepth(stdin);
  if (depth > MAX_CONFIG_DEPTH) {
    throw new CniError(
      CniErrorCode.decodeFailure,
      `cannot decode the network config: nested ${depth} levels deep, more than ${MAX_CONFIG_DEPTH}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdin);
  } catch (e) {
    throw new CniError(
      CniErrorCode.decodeFailure,
      `cannot decode the network config: ${(e as Error).message}`,
      undefined,
      { cause: e },
    );
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new CniError(CniErrorCode.decodeFailure, 'cannot decode the network config: not a JSON object');
  }
  return parsed as Record<string, unknown>;
}

/** The deepest nesting of `[` and `{` in JSON text (brackets inside strings do not count). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) max = Math.max(max, ++depth);
    else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return max;
}

function pickVersion(config: Record<string, unknown>, versions: readonly string[]): string {
  const single = config['cniVersion'];
  const list = config['cniVersions'];
  if (typeof single === 'string' && single) {
    if (versions.includes(single)) return single;
    throw new CniError(
      CniErrorCode.incompatibleVersion,
      `unsupported CNI version ${single}`,
      `supported: ${versions.join(', ')}`,
    );
  }
  if (Array.isArray(list) && list.every((v) => typeof v === 'string')) {
    const chosen = negotiateVersion(list, versions);
    if (chosen) return chosen;
    throw new CniError(
      CniErrorCode.incompatibleVersion,
      `none of cniVersions ${list.join(', ')} is supported`,
      `supported: ${versions.join(', ')}`,
    );
  }
  throw new CniError(CniErrorCode.incompatibleVersion, 'the network config has no cniVersion');
}

function tryRequestedVersion(stdin: string): string | undefined {
  try {
    const v = (JSON.parse(stdin) as { cniVersion?: unknown }).cniVersion;
    return typeof v === 'string' && v ? v : undefined;
  } catch {
    return undefined;
  }
}
