import { access, constants } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand, isCommandError, isCommandNotFoundError } from '@fabrik/netcore';
import {
  CniError,
  CniErrorCode,
  SPEC_VERSIONS,
  type NodeSettings,
  parseCniResult,
  runPlugin,
  type CmdArgs,
  type CniResult,
  type PluginFuncs,
} from '@fabrik/cni-skel';

/**
 * IPAM plugins the caller runs in its own process instead of executing them, by `ipam.type`: the
 * verbs of the plugin for one invocation's environment. agent-host gives fabrik-ipam's, with the
 * API client it holds; the plugin process gives none.
 */
export type InProcessIpam = Readonly<Record<string, (env: Readonly<Record<string, string>>) => PluginFuncs>>;

/**
 * What the node decides about IPAM plugins (node settings `ipam` and `timeouts.ipamTimeoutMs`):
 * tenants write network configs, and fabrik-ovs executes their `ipam.type` as root.
 */
export interface IpamNodeRules {
  /** The only plugins `ipam.type` may name. */
  readonly allowedTypes: readonly string[];
  /** host-local's `dataDir`, whatever the network config says. */
  readonly hostLocalDataDir: string;
  /** How long a delegated plugin may run before its process group is killed. */
  readonly timeoutMs: number;
  /** The node settings file, for messages. */
  readonly settingsPath: string;
}

/** The IPAM rules of the node settings. */
export function ipamRulesOf(node: NodeSettings): IpamNodeRules {
  return {
    allowedTypes: node.settings.ipam.allowedTypes,
    hostLocalDataDir: node.settings.ipam.hostLocalDataDir,
    timeoutMs: node.settings.timeouts.ipamTimeoutMs,
    settingsPath: node.path,
  };
}

/** Whether the node lets a network config name `type` as its IPAM plugin. */
export const ipamTypeAllowed = (type: string, rules: IpamNodeRules): boolean =>
  rules.allowedTypes.includes(type);

/** Code 7 naming `ipam.type` unless the node allows the plugin (see {@link IpamNodeRules}). */
export function assertIpamTypeAllowed(type: string, rules: IpamNodeRules): void {
  if (ipamTypeAllowed(type, rules)) return;
  throw new CniError(
    CniErrorCode.invalidNetworkConfig,
    `invalid network config: ipam.type: ${JSON.stringify(type)} is not an IPAM plugin this node runs (ipam.allowedTypes of ${rules.settingsPath}: ${rules.allowedTypes.join(', ') || 'none'})`,
  );
}

/** What an IPAM plugin is called with: the same environment and config semantics as the plugin itself. */
export interface IpamCall {
  readonly type: string;
  readonly rules: IpamNodeRules;
  readonly command: 'ADD' | 'DEL' | 'CHECK' | 'GC' | 'STATUS';
  /** The network config as received (IPAM plugins read their own `ipam` section from it). */
  readonly stdinData: string;
  readonly cniVersion: string;
  readonly containerId: string;
  readonly netns: string;
  readonly ifname: string;
  readonly cniArgs: string;
  readonly path: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The IPAM call of a command: the IPAM plugin sees the same CNI_* values and config this plugin got. */
export function ipamCallOf(
  type: string,
  command: IpamCall['command'],
  args: CmdArgs,
  env: IpamCall['env'],
  rules: IpamNodeRules,
): IpamCall {
  return {
    type,
    rules,
    command,
    stdinData: args.stdinData,
    cniVersion: args.cniVersion,
    containerId: args.containerId,
    netns: args.netns,
    ifname: args.ifname,
    cniArgs: args.args,
    path: args.path,
    env,
  };
}

/** The IPAM plugin ran to its end and answered with a CNI error (its own code and message). */
export class IpamAnswerError extends CniError {
  constructor(code: number, msg: string, details?: string, options?: { cause?: unknown }) {
    super(code, msg, details, options);
    this.name = 'IpamAnswerError';
  }
}

export const isIpamAnswer = (e: unknown): e is IpamAnswerError => e instanceof IpamAnswerError;

/** The `ipam.type` of a network config's text (a recorded one), or undefined when it has none. */
export function ipamTypeOf(stdinData: string): string | undefined {
  try {
    const t = (JSON.parse(stdinData) as { ipam?: { type?: unknown } }).ipam?.type;
    return typeof t === 'string' ? t : undefined;
  } catch {
    return undefined;
  }
}

/** Finds an IPAM plugin binary on CNI_PATH (code 7 names `ipam.type` when it is nowhere). */
export async function findPlugin(type: string, path: readonly string[]): Promise<string> {
  for (const dir of path) {
    const file = join(dir, type);
    try {
      await access(file, constants.X_OK);
      return file;
    } catch {
      /* try the next directory */
    }
  }
  throw new CniError(
    CniErrorCode.invalidNetworkConfig,
    `invalid network config: ipam.type: plugin ${type} not found in CNI_PATH ${path.join(':')}`,
  );
}

/**
 * The plugin file of an allowed IPAM type (code 7 naming `ipam.type` for a type the node does not
 * allow or that is nowhere on CNI_PATH).
 */
export async function resolveIpamPlugin(
  type: string,
  path: readonly string[],
  rules: IpamNodeRules,
): Promise<string> {
  assertIpamTypeAllowed(type, rules);
  return findPlugin(type, path);
}

/**
 * The config the IPAM plugin reads: the network config, with what the node decides in place of
 * what the tenant wrote (host-local's `dataDir`: the directory root writes its leases into).
 */
function delegatedConfig(call: IpamCall): string {
  if (call.type !== 'host-local') return call.stdinData;
  const config = JSON.parse(call.stdinData) as { ipam?: Record<string, unknown> };
  return JSON.stringify({ ...config, ipam: { ...config.ipam, dataDir: call.rules.hostLocalDataDir } });
}

/**
 * Executes the IPAM plugin like a runtime would (libcni's `invoke.DelegateAdd` and friends) and
 * returns its result for ADD; GC and STATUS go only to a plugin that speaks 1.1.0 (they are
 * 1.1.0's verbs; an older plugin is not asked). Only a type the node allows runs; it runs as the leader of a
 * process group of its own, killed as a whole at the node's deadline (`timeouts.ipamTimeoutMs`). A plugin that speaks only older versions (host-local and static stop
 * at 1.0.0) is retried once with the config (and prevResult) rewritten to 1.0.0, whose result
 * format 1.1.0 extends.
 * Its error is passed on with the plugin's own code.
 *
 * A type of `inProcess` runs in this process (see {@link runInProcess}) instead; its binary must
 * still be on CNI_PATH, so that both paths accept and refuse the same configs.
 */
export async function execIpam(
  call: IpamCall,
  inProcess: InProcessIpam | undefined,
): Promise<CniResult | undefined> {
  const file = await resolveIpamPlugin(call.type, call.path, call.rules);
  const stdin = delegatedConfig(call);
  const local = inProcess?.[call.type];
  if (local) return runInProcess(local, call, stdin);
  // GC and STATUS exist from 1.1.0 on: a plugin of an older spec has none to forward to.
  if ((call.command === 'GC' || call.command === 'STATUS') && !(await speaks(file, call, '1.1.0')))
    return undefined;
  try {
    return await invoke(file, call, stdin);
  } catch (e) {
    // Plugins that stop at 1.0.0 refuse a 1.1.0 config with code 1, or (static's CHECK) fail on
    // the 1.1.0 prevResult with a code of their own: only on a failure is VERSION asked.
    if (isIpamAnswer(e) && call.cniVersion === '1.1.0' && !(await speaks(file, call, '1.1.0')))
      return await invoke(file, call, asVersion100(stdin));
    throw e;
  }
}

/** Whether the plugin's VERSION answer lists `version` (a plugin that cannot answer does not). */
async function speaks(file: string, call: IpamCall, version: string): Promise<boolean> {
  try {
    const { stdout } = await runCommand(file, [], {
      input: JSON.stringify({ cniVersion: version }),
      env: { ...call.env, CNI_COMMAND: 'VERSION' },
      timeoutMs: Math.min(10_000, call.rules.timeoutMs),
      processGroup: true,
    });
    const supported = (JSON.parse(stdout) as { supportedVersions?: unknown }).supportedVersions;
    return Array.isArray(supported) && supported.includes(version);
  } catch {
    return false;
  }
}

/** The config written as 1.0.0, prevResult too: 1.1.0 only added fields, which older readers ignore. */
function asVersion100(stdinData: string): string {
  const config = JSON.parse(stdinData) as Record<string, unknown>;
  const prev = config['prevResult'];
  return JSON.stringify({
    ...config,
    cniVersion: '1.0.0',
    ...(prev && typeof prev === 'object' ? { prevResult: { ...prev, cniVersion: '1.0.0' } } : {}),
  });
}

/** The environment of the IPAM call: the caller's, with the CNI_* values of this command. */
function ipamEnv(call: IpamCall): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(call.env)) if (v !== undefined) env[k] = v;
  return {
    ...env,
    CNI_COMMAND: call.command,
    CNI_CONTAINERID: call.containerId,
    CNI_NETNS: call.netns,
    CNI_IFNAME: call.ifname,
    CNI_ARGS: call.cniArgs,
    CNI_PATH: call.path.join(':'),
  };
}

/**
 * Runs an IPAM plugin's verbs in this process through the same skeleton its binary runs them with
 * (runPlugin: version negotiation, the result written for the config's version, errors as JSON),
 * with the same environment and config an executed plugin gets, and reads its output as
 * {@link execIpam} reads an executed plugin's: results and errors are the same on both paths.
 */
async function runInProcess(
  plugin: InProcessIpam[string],
  call: IpamCall,
  stdin: string,
): Promise<CniResult | undefined> {
  const env = ipamEnv(call);
  let stdout = '';
  const exitCode = await runPlugin(
    plugin(env),
    { versions: SPEC_VERSIONS },
    { env, stdin, stdout: (text) => (stdout += text) },
  );
  if (exitCode === 0) return call.command === 'ADD' ? ipamResult(call.type, stdout) : undefined;
  throw (
    answerError(call, stdout) ??
    new CniError(
      CniErrorCode.internal,
      `IPAM ${call.type} ${call.command} failed: exit status ${exitCode} without an error`,
    )
  );
}

/** The IPAM plugin's own error, from what it printed; undefined when it printed none. */
function answerError(call: IpamCall, stdout: string, cause?: unknown): IpamAnswerError | undefined {
  const reported = tryParseError(stdout);
  return reported
    ? new IpamAnswerError(
        reported.code,
        `IPAM ${call.type} ${call.command}: ${reported.msg}`,
        reported.details,
        {
          cause,
        },
      )
    : undefined;
}

async function invoke(file: string, call: IpamCall, stdin: string): Promise<CniResult | undefined> {
  const started = Date.now();
  try {
    const { stdout } = await runCommand(file, [], {
      input: stdin,
      env: ipamEnv(call),
      timeoutMs: call.rules.timeoutMs,
      processGroup: true,
    });
    return call.command === 'ADD' ? ipamResult(call.type, stdout) : undefined;
  } catch (e) {
    if (isCommandError(e) && e.signal === 'SIGKILL' && Date.now() - started >= call.rules.timeoutMs) {
      throw new CniError(
        CniErrorCode.tryAgainLater,
        `IPAM ${call.type} ${call.command} did not finish within ${call.rules.timeoutMs} ms (timeouts.ipamTimeoutMs of ${call.rules.settingsPath}): it was killed with every process it started`,
        undefined,
        { cause: e },
      );
    }
    if (isCommandError(e)) {
      const answered = answerError(call, e.stdout, e);
      if (answered) throw answered;
      throw new CniError(
        CniErrorCode.internal,
        `IPAM ${call.type} ${call.command} failed: ${e.message}`,
        undefined,
        { cause: e },
      );
    }
    if (isCommandNotFoundError(e)) {
      throw new CniError(
        CniErrorCode.invalidNetworkConfig,
        `invalid network config: ipam.type: ${file} cannot be executed`,
        undefined,
        { cause: e },
      );
    }
    throw e;
  }
}

function ipamResult(type: string, stdout: string): CniResult {
  let raw: unknown;
  try {
    raw = JSON.parse(stdout);
  } catch (e) {
    throw new CniError(
      CniErrorCode.internal,
      `IPAM ${type} ADD printed no JSON result`,
      stdout.slice(0, 200),
      {
        cause: e,
      },
    );
  }
  const parsed = parseCniResult(raw);
  if (!parsed.ok)
    throw new CniError(
      CniErrorCode.internal,
      `IPAM ${type} ADD returned an invalid result: ${parsed.field}: ${parsed.message}`,
    );
  return parsed.result;
}

function tryParseError(stdout: string): { code: number; msg: string; details?: string } | undefined {
  try {
    const j = JSON.parse(stdout) as { code?: unknown; msg?: unknown; details?: unknown };
    if (typeof j.code === 'number' && typeof j.msg === 'string') {
      return {
        code: j.code,
        msg: j.msg,
        ...(typeof j.details === 'string' && j.details ? { details: j.details } : {}),
      };
    }
  } catch {
    /* not JSON */
  }
  return undefined;
}
