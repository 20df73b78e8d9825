import { mkdir, open, readFile, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { CniResult } from './skel/index.js';

/** What ADD remembers about an attachment, for DEL, CHECK and GC (and after a reboot). */
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
  readonly result: CniResult;
}

// <cacheDir>/<network>/<containerId>/<ifname>.json: neither id contains '/', and one directory
// per container keeps every attachment's file name unambiguous.
const recordPath = (cacheDir: string, network: string, containerId: string, ifname: string) =>
  join(cacheDir, network, containerId, `${ifname}.json`);

/** Writes the record atomically (temp file, fsync, rename, fsync of the directory). */
export async function writeAttachment(cacheDir: string, rec: AttachmentRecord): Promise<void> {
  const file = recordPath(cacheDir, rec.network, rec.containerId, rec.ifname);
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(JSON.stringify(rec));
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, file);
  const dir = await open(dirname(file), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/** The record, or undefined when there is none (or it is unreadable: DEL must not depend on it). */
export async function readAttachment(
  cacheDir: string,
  network: string,
  containerId: string,
  ifname: string,
): Promise<AttachmentRecord | undefined> {
  try {
    return JSON.parse(
      await readFile(recordPath(cacheDir, network, containerId, ifname), 'utf8'),
    ) as AttachmentRecord;
  } catch {
    return undefined;
  }
}

/** Removes the record (and the container's directory once empty); a missing one is fine. */
export async function removeAttachment(
  cacheDir: string,
  network: string,
  containerId: string,
  ifname: string,
): Promise<void> {
  const file = recordPath(cacheDir, network, containerId, ifname);
  await rm(file, { force: true });
  try {
    await rmdir(dirname(file));
  } catch {
    /* not empty (another ifname of the same container) or already gone */
  }
}

/** Every record of one network. */
export async function listAttachments(cacheDir: string, network: string): Promise<AttachmentRecord[]> {
  const out: AttachmentRecord[] = [];
  let containers: string[];
  try {
    containers = await readdir(join(cacheDir, network));
  } catch {
    return out;
  }
  for (const c of containers) {
    let files: string[];
    try {
      files = await readdir(join(cacheDir, network, c));
    } catch {
      continue;
    }
    for (const f of files.filter((f) => f.endsWith('.json'))) {
      const rec = await readAttachment(cacheDir, network, c, f.slice(0, -'.json'.length));
      if (rec) out.push(rec);
    }
  }
  return out;
}
