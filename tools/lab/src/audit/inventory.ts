import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand } from '@fabrik/netcore';
import { createNetlink } from '@fabrik/netcore/netlink';
import { OVS_OWNER_KEY, connectOvsdb, selectedRows, where } from '@fabrik/netcore/ovsdb';
import type { FrrConfigLine, NodeInventory, OwnedLink, OwnedOvsRow } from './findings.js';
import { parseFrrRunningConfig } from './frr-config.js';

// Reads what fabrik holds on a node, from the node itself: links whose ifalias carries fabrik's
// mark, OVS Bridge and Port rows with external_ids:fabrik-owner, FRR's running configuration,
// files under the directories where fabrik's components keep per-object state.

/** Where a node's fabrik state lives. */
export interface AuditTarget {
  /** Network namespaces whose links are listed (the node's host and HBR namespaces). */
  readonly netns: readonly string[];
  /** The node's OVSDB endpoint (`unix:PATH`), when it runs Open vSwitch. */
  readonly ovsdb?: string;
  /** FRR pathspaces (`vtysh -N`) whose running configuration is read. */
  readonly frrPathspaces?: readonly string[];
  /** Directories whose files are listed, recursively (caches: a missing directory holds nothing). */
  readonly dirs?: readonly string[];
}

const MARK = /^fabrik:([^:]+)(?::(.*))?$/;

/** Links with fabrik's ownership mark in `netns`. */
export async function ownedLinks(netns: string): Promise<OwnedLink[]> {
  const links = await createNetlink({ netns }).linkList();
  return links.flatMap((l) => {
    const m = MARK.exec(l.alias ?? '');
    if (!m) return [];
    return [{ netns, name: l.spec.name, owner: m[1]!, ...(m[2] ? { label: m[2] } : {}) }];
  });
}

/** Bridge and Port rows carrying `external_ids:fabrik-owner`. */
export async function ownedOvsRows(endpoint: string): Promise<OwnedOvsRow[]> {
  const client = await connectOvsdb(endpoint, { timeoutMs: 10_000 });
  try {
    const [bridges, ports] = await client.transact([
      ...where('Bridge').select('name', 'external_ids'),
      ...where('Port').select('name', 'external_ids'),
    ]);
    const owned = (
      table: OwnedOvsRow['table'],
      rows: { name?: string; external_ids?: Record<string, string> }[],
    ) =>
      rows.flatMap((r) => {
        const owner = r.external_ids?.[OVS_OWNER_KEY];
        return owner === undefined ? [] : [{ table, name: r.name ?? '', owner }];
      });
    return [
      ...owned('Bridge', selectedRows('Bridge', bridges)),
      ...owned('Port', selectedRows('Port', ports)),
    ];
  } finally {
    await client.close();
  }
}

/** The running configuration of the FRR instance with pathspace `pathspace`, line by line. */
export async function frrConfigLines(pathspace: string): Promise<FrrConfigLine[]> {
  const { stdout } = await runCommand('vtysh', ['-N', pathspace, '-c', 'show running-config']);
  return parseFrrRunningConfig(pathspace, stdout);
}

/** Regular files under `dir` (recursively); none when it does not exist. */
export async function filesUnder(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const out: string[] = [];
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out;
}

/** Everything fabrik-marked the node holds now. */
export async function takeNodeInventory(target: AuditTarget): Promise<NodeInventory> {
  const [links, ovsRows, frrLines, files] = await Promise.all([
    Promise.all(target.netns.map(ownedLinks)).then((l) => l.flat()),
    target.ovsdb === undefined ? [] : ownedOvsRows(target.ovsdb),
    Promise.all((target.frrPathspaces ?? []).map(frrConfigLines)).then((l) => l.flat()),
    Promise.all((target.dirs ?? []).map(filesUnder)).then((l) => l.flat()),
  ]);
  return { links, ovsRows, frrLines, files };
}
