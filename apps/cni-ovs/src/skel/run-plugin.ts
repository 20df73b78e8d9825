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
const IFNAME = /^[^/:\s]{1,15}$/;

/**
 * Runs one CNI invocation: reads the environment and config from `io`, calls the verb's function,
 * prints its result converted to the config's spec version (or the error JSON), and resolves with
 * the process exit code (0 or 1). Equivalent to `skel.PluginMainFuncs` of libcni.
 */
export async function runPlugin(funcs: PluginFuncs, options: PluginOptions, io: PluginIo): Promise<number> {
  const versions = options.versions ?? SPEC_VERSIONS;
  const newest = [...versions].sort(compareVersions).at(-1) ?? '1.1.0';
  // Errors are written in the config's version whenever it can be read at all.
  const requested = tryRequestedVersion(io.stdin);
  let cniVersion = requested && versions.includes(requested) ? requested : newest;
  try {
    const command = parseCommand(io.env['CNI_COMMAND']);
    if (command === 'VERSION') {
      io.stdout(JSON.stringify({ cniVersion: requested ?? newest, supportedVersions: versions }));
      return 0;
    }
    for (const name of REQUIRED_ENV[command]) {
      if (!io.env[name] && !(name === 'CNI_NETNS' && command === 'DEL')) {
        throw new CniError(
          CniErrorCode.invalidEnvironment,
          `required environment variable ${name} is not set`,
        );
      }
    }
    const containerId = io.env['CNI_CONTAINERID'] ?? '';
    if (containerId && !CONTAINER_ID.test(containerId)) {
      throw new CniError(
        CniErrorCode.invalidEnvironment,
        `CNI_CONTAINERID ${JSON.stringify(containerId)} is invalid: must start with a letter or digit, then letters, digits, _ . -`,
      );
    }
    const ifname = io.env['CNI_IFNAME'] ?? '';
    if (ifname && (!IFNAME.test(ifname) || ifname === '.' || ifname === '..')) {
      throw new CniError(
        CniErrorCode.invalidEnvironment,
        `CNI_IFNAME ${JSON.stringify(ifname)} is invalid: 1-15 characters without '/', ':' or whitespace`,
      );
    }
    const config = decodeConfig(io.stdin);
    cniVersion = pickVersion(config, versions);
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

function parseCommand(value: string | undefined): CniCommand {
  if (!value)
    throw new CniError(
      CniErrorCode.invalidEnvironment,
      'required environment variable CNI_COMMAND is not set',
    );
  if (['ADD', 'DEL', 'CHECK', 'GC', 'STATUS', 'VERSION'].includes(value)) return value as CniCommand;
  throw new CniError(CniErrorCode.invalidEnvironment, `unknown CNI_COMMAND ${JSON.stringify(value)}`);
}

function decodeConfig(stdin: string): Record<string, unknown> {
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
