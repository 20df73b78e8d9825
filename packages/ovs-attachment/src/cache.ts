import { open, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fsStep, makeDirectory, readRegularFile, type CniResult } from '@fabrik/cni-skel';

/**
 * What ADD remembers about an attachment, for DEL, CHECK and GC (and after a reboot). ADD writes it
 * before it creates anything (without `result`) and again at the end (with it): a record is the
 * evidence that an attachment may hold resources, an IP lease in particular.
 */
export interface AttachmentRecord {
  readonly version: 1;
  readonly network: string;
  readonly containerId: string;
  readonly ifname: string;
  readonly netns: string;
  readonly hostIfname: string;
  readonly bridge: string;
  /** The network config of the ADD, so GC can release the IPs with the IPAM config they came from. */
  readonly stdinData: string;
  readonly cniArgs: string;
  /** Absent while ADD is still acquiring resources (or when it failed and could not undo them all). */
  readonly result?: CniResult;
}

/** A record is the config it was added with plus a little; anything much larger is not one. */
const MAX_RECORD_BYTES = 1024 * 1024;

// <cacheDir>/<network>/<containerId>/<ifname>.json: neither id contains '/', and one directory
// per container keeps every attachment's file name unambiguous.
const containerDir = (cacheDir: string, network: string, containerId: string) =>
  join(cacheDir, network, containerId);
const recordPath = (cacheDir: string, network: string, containerId: string, ifname: string) =>
  join(containerDir(cacheDir, network, containerId), `${ifname}.json`);

/**
 * Writes the record atomically (temporary file, rename), creating its directory first; `durable`
 * adds an fsync of the file and of the directory, so that it survives a crash. Every step is
 * bounded in time (bounded-fs.ts); failures are FsStepErrors.
 */
export async function writeAttachment(
  cacheDir: string,
  rec: AttachmentRecord,
  options: { durable: boolean },
): Promise<void> {
  const file = recordPath(cacheDir, rec.network, rec.containerId, rec.ifname);
  await makeDirectory(dirname(file));
  const tmp = `${file}.${process.pid}.tmp`;
  const fh = await fsStep('create', tmp, () => open(tmp, 'w', 0o600));
  try {
    await fsStep('write', tmp, () => fh.writeFile(JSON.stringify(rec)));
    if (options.durable) await fsStep('fsync', tmp, () => fh.sync());
  } finally {
    await fh.close().catch(() => undefined);
  }
  await fsStep('rename', tmp, () => rename(tmp, file));
  if (!options.durable) return;
  const dir = await fsStep('open', dirname(file), () => open(dirname(file), 'r'));
  try {
    await fsStep('fsync', dirname(file), () => dir.sync());
  } finally {
    await dir.close().catch(() => undefined);
  }
}

/**
 * The record, or undefined when there is none or it cannot be read: DEL and GC must work without
 * it (the cache may be gone, unreadable or misconfigured).
 */
export async function readAttachment(
  cacheDir: string,
  network: string,
  containerId: string,
  ifname: string,
): Promise<AttachmentRecord | undefined> {
  try {
    const text = await readRegularFile(recordPath(cacheDir, network, containerId, ifname), MAX_RECORD_BYTES);
    return text === undefined ? undefined : (JSON.parse(text) as AttachmentRecord);
  } catch {
    return undefined;
  }
}

/**
 * Removes the record, and the container's and the network's directories once empty. A missing
 * record, or a cache directory that cannot hold one (a path through a regular file), counts as
 * removed.
 */
export async function removeAttachment(
  cacheDir: string,
  network: string,
  containerId: string,
  ifname: string,
): Promise<void> {
  const file = recordPath(cacheDir, network, containerId, ifname);
  await fsStep('remove', file, () => rm(file, { force: true })).catch((e: { errno?: string }) => {
    if (e.errno !== 'ENOTDIR') throw e;
  });
  for (const dir of [dirname(file), join(cacheDir, network)]) {
    const removed = await fsStep('rmdir', dir, () => rmdir(dir)).then(
      () => true,
      // Not empty (another attachment of the container or network) or already gone.
      (e: { errno?: string }) => e.errno === 'ENOENT',
    );
    if (!removed) break;
  }
}

/** Every readable record of one network. */
export async function listAttachments(cacheDir: string, network: string): Promise<AttachmentRecord[]> {
  const list = (dir: string) => fsStep('list', dir, () => readdir(dir)).catch(() => [] as string[]);
  const out: AttachmentRecord[] = [];
  for (const c of await list(join(cacheDir, network))) {
    for (const f of (await list(join(cacheDir, network, c))).filter((f) => f.endsWith('.json'))) {
      const rec = await readAttachment(cacheDir, network, c, f.slice(0, -'.json'.length));
      if (rec) out.push(rec);
    }
  }
  return out;
}
