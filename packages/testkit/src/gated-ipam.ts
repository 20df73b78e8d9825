import { access, chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Debian's host-local, which the gated plugin runs. */
const HOST_LOCAL = '/usr/lib/cni/host-local';

/**
 * An IPAM plugin that holds ADD at a gate: it runs host-local (the lease is taken), announces that
 * it is waiting, and prints host-local's answer only once the gate is opened. DEL and CHECK pass
 * straight through. With it a test can stop a CNI ADD in the middle, with the veth and the OVS port
 * made and the lease taken, and do something then (kill the agent running it, send a DEL).
 */
export interface GatedIpam {
  /** The plugin's file name: the network config's `ipam.type`. */
  readonly type: string;
  /** The directory holding it: put it on CNI_PATH. */
  readonly dir: string;
  /** Resolves once an ADD is waiting at the gate. */
  waiting(): Promise<void>;
  /** Lets every waiting and future ADD answer. */
  open(): Promise<void>;
}

/** Writes the gated plugin into `dir` (created if needed). */
export async function createGatedIpam(dir: string, type = 'gated-ipam'): Promise<GatedIpam> {
  await mkdir(dir, { recursive: true });
  const gate = join(dir, `${type}.open`);
  const waitingFile = join(dir, `${type}.waiting`);
  const file = join(dir, type);
  // A POSIX shell script: a CNI plugin is any executable; runtimes and agents exec it by path.
  await writeFile(
    file,
    [
      '#!/bin/sh',
      `out=$(${HOST_LOCAL})`,
      'rc=$?',
      'if [ "$CNI_COMMAND" = ADD ]; then',
      `  : > '${waitingFile}'`,
      `  while [ ! -e '${gate}' ]; do sleep 0.05; done`,
      'fi',
      'printf \'%s\' "$out"',
      'exit $rc',
      '',
    ].join('\n'),
  );
  await chmod(file, 0o755);
  return {
    type,
    dir,
    async waiting() {
      for (;;) {
        try {
          await access(waitingFile);
          return;
        } catch {
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    },
    open: () => writeFile(gate, ''),
  };
}
