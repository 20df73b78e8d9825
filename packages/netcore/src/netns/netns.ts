import { readdir } from 'node:fs/promises';
import { NetnsName } from '@fabrik/api';
import { FabrikError } from '../errors.js';
import { runCommand, type RunOptions, type RunResult } from '../exec/run.js';

/** Where iproute2 keeps named network namespaces. */
export const NETNS_RUN_DIR = '/run/netns';

/** A netns name was rejected before anything was changed. */
export class InvalidNetnsNameError extends FabrikError<'INVALID_NETNS_NAME'> {
  override readonly name = 'InvalidNetnsNameError';
  constructor(readonly netnsName: string) {
    super(
      'INVALID_NETNS_NAME',
      `invalid network namespace name ${JSON.stringify(netnsName)}: 1-64 of [A-Za-z0-9_.-], starting with a letter or digit`,
    );
  }
}

/** Throws {@link InvalidNetnsNameError} unless `name` is a valid named-netns name (@fabrik/api's `NetnsName`). */
export function validateNetnsName(name: string): string {
  if (!NetnsName.safeParse(name).success) throw new InvalidNetnsNameError(name);
  return name;
}

/** The path of a named netns, for tools that take a path (CNI_NETNS, setns). */
export const netnsPath = (name: string): string => `${NETNS_RUN_DIR}/${validateNetnsName(name)}`;

/** Creates a named netns. Equivalent to: `ip netns add NAME`. */
export async function netnsAdd(name: string): Promise<void> {
  await runCommand('ip', ['netns', 'add', validateNetnsName(name)]);
}

/** Deletes a named netns; a missing one is not an error. Equivalent to: `ip netns del NAME`. */
export async function netnsDel(name: string): Promise<void> {
  validateNetnsName(name);
  if (!(await netnsList()).includes(name)) return;
  await runCommand('ip', ['netns', 'del', name]);
}

/** Names of every named netns. Equivalent to: `ls /run/netns`. */
export async function netnsList(): Promise<string[]> {
  try {
    return (await readdir(NETNS_RUN_DIR)).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

/** Runs a program inside a named netns. Equivalent to: `ip netns exec NAME FILE ARGS...`. */
export function runInNetns(
  name: string,
  file: string,
  args: readonly string[],
  options?: RunOptions,
): Promise<RunResult> {
  return runCommand('ip', ['netns', 'exec', validateNetnsName(name), file, ...args], options);
}
