import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand, isCommandError } from '@fabrik/netcore';

// The podman commands the image build uses (podman's own storage and settings; runc and cgroupfs
// are what work on these machines, see ../shared/lab-notes).

export async function imageExists(ref: string): Promise<boolean> {
  try {
    await runCommand('podman', ['image', 'exists', ref]);
    return true;
  } catch (e) {
    if (isCommandError(e) && e.exitCode === 1) return false;
    throw e;
  }
}

/** A label of an image (undefined when the image or the label is missing). */
export async function imageLabel(ref: string, label: string): Promise<string | undefined> {
  if (!(await imageExists(ref))) return undefined;
  const { stdout } = await runCommand('podman', ['image', 'inspect', '--format', '{{json .Labels}}', ref]);
  const labels = JSON.parse(stdout.trim() || 'null') as Record<string, string> | null;
  return labels?.[label];
}

/** The image's size in bytes, as `podman images` reports it (all layers, uncompressed). */
export async function imageSize(ref: string): Promise<number> {
  const { stdout } = await runCommand('podman', ['image', 'inspect', '--format', '{{.Size}}', ref]);
  return Number(stdout.trim());
}

export interface BuildOptions {
  readonly containerfile: string;
  readonly context: string;
  readonly tags: readonly string[];
  readonly buildArgs: Readonly<Record<string, string>>;
  readonly labels: Readonly<Record<string, string>>;
}

/** `podman build` without pulling anything (`--pull=never`: every FROM is a local image). */
export async function buildImage(options: BuildOptions): Promise<void> {
  await runCommand(
    'podman',
    [
      'build',
      '--pull=never',
      '--layers',
      '--format=oci',
      '-f',
      options.containerfile,
      ...Object.entries(options.buildArgs).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]),
      ...Object.entries(options.labels).flatMap(([k, v]) => ['--label', `${k}=${v}`]),
      ...options.tags.flatMap((t) => ['-t', t]),
      options.context,
    ],
    { timeoutMs: 1_800_000 },
  );
}

/**
 * The environment for `podman run` on these machines: a containers.conf (written to `dir`) with
 * runc (crun fails on hybrid cgroups), cgroupfs, and explicit ulimits (podman's defaults are
 * refused here: "error setting rlimit type 7").
 */
export async function podmanRunEnv(dir: string): Promise<NodeJS.ProcessEnv> {
  const conf = join(dir, 'containers.conf');
  await mkdir(dir, { recursive: true });
  await writeFile(
    conf,
    [
      '[engine]',
      'runtime="runc"',
      'cgroup_manager="cgroupfs"',
      'events_logger="file"',
      '[containers]',
      'default_ulimits=["nofile=20000:20000","nproc=32768:32768"]',
      '',
    ].join('\n'),
  );
  return { ...process.env, CONTAINERS_CONF: conf };
}
