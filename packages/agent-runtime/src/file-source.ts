import { watch, type FSWatcher } from 'node:fs';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { basename, dirname } from 'node:path';
import { LineCounter, parseAllDocuments, stringify } from 'yaml';
import { writeFileAtomic } from './atomic-file.js';
import type { IntentObject, IntentSnapshot, IntentSource, NodeInfo, SourceProblem } from './intent.js';

export interface FileSourceOptions {
  /** A multi-document YAML file of objects in their CRD shape (`apiVersion`, `kind`, `metadata`, `spec`). */
  readonly path: string;
  /** Kinds to keep; documents of other kinds are ignored (a relay may write more). Default: all. */
  readonly kinds?: readonly string[];
  /** This node's name: a `kind: Node` document with this name gives the node's labels. */
  readonly nodeName?: string;
  /**
   * How often the file is stat()ed besides the directory watch: a watch misses changes on some
   * filesystems (bind mounts, overlay, NFS) and across a replaced directory. Default: 2000 ms.
   */
  readonly pollIntervalMs?: number;
  /** Called when the file could not be read or watched (it is retried); default: ignored. */
  readonly onError?: (error: Error) => void;
}

/**
 * An intent source reading one file, re-read whenever it changes: `fs.watch` on its directory
 * (a writer that replaces the file by rename, as {@link writeIntentFile} does, is seen), plus a
 * periodic stat as a fallback. A missing file means the source has not answered yet (nothing is
 * deleted because of it); an empty file means "no objects". A file that is not YAML keeps the last
 * good snapshot and reports the problem.
 */
export function createFileSource(options: FileSourceOptions): IntentSource {
  const { path } = options;
  const dir = dirname(path);
  const name = basename(path);
  const kinds = options.kinds ? new Set(options.kinds) : undefined;
  let snapshot: IntentSnapshot = { objects: [], problems: [] };
  let synced = false;
  let lastHash: string | undefined;
  let lastStat = '';
  let watcher: FSWatcher | undefined;
  let poll: NodeJS.Timeout | undefined;
  let notify: (reason: string) => void = () => {};
  let reading: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const report = (e: unknown) => options.onError?.(e instanceof Error ? e : new Error(String(e)));

  async function read(reason: string): Promise<void> {
    let text: string;
    try {
      const st = await stat(path);
      lastStat = `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
      text = await readFile(path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') report(e);
      lastStat = 'missing';
      return;
    }
    const hash = createHash('sha256').update(text).digest('hex');
    if (hash === lastHash) return;
    lastHash = hash;
    const { fatal, ...parsed } = parseIntentDocuments(text, {
      where: name,
      kinds,
      nodeName: options.nodeName,
    });
    if (fatal && synced) {
      // Keep applying what the file said last; report why the new content is ignored.
      snapshot = { ...snapshot, problems: parsed.problems };
    } else {
      snapshot = parsed;
      synced = synced || !fatal;
    }
    if (!stopped) notify(reason);
  }

  // Reads never overlap; a change seen during a read causes one more read.
  function schedule(reason: string): void {
    if (stopped) return;
    if (reading) {
      again = true;
      return;
    }
    reading = read(reason)
      .catch(report)
      .finally(() => {
        reading = undefined;
        if (again) {
          again = false;
          schedule(reason);
        }
      });
  }

  function startWatch(): void {
    if (watcher || stopped) return;
    try {
      watcher = watch(dir, { persistent: false }, (_event, file) => {
        if (file === null || file === name) schedule('intent file changed');
      });
      watcher.on('error', (e) => {
        report(e);
        watcher?.close();
        watcher = undefined; // the next poll tries again
      });
    } catch (e) {
      report(e); // no directory yet: polling covers it until it exists
    }
  }

  async function pollOnce(): Promise<void> {
    startWatch();
    const now = await stat(path).then(
      (st) => `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`,
      () => 'missing',
    );
    if (now !== lastStat) schedule('intent file changed (poll)');
  }

  return {
    description: `file ${path}`,
    async start(onChange) {
      notify = onChange;
      startWatch();
      schedule('intent file read');
      await reading;
      poll = setInterval(() => void pollOnce().catch(report), options.pollIntervalMs ?? 2000);
      poll.unref();
    },
    hasSynced: () => synced,
    snapshot: () => snapshot,
    async stop() {
      stopped = true;
      if (poll) clearInterval(poll);
      watcher?.close();
      watcher = undefined;
      await reading;
    },
  };
}

export interface ParseIntentOptions {
  /** Names the file in problems: `intent.yaml document 2`. */
  readonly where: string;
  readonly kinds?: ReadonlySet<string>;
  readonly nodeName?: string;
}

/**
 * Pure: the documents of a multi-document YAML text as objects. A document that is not an object
 * with `apiVersion`, `kind` and `metadata.name` is reported and skipped; `fatal` when the text is
 * not YAML at all.
 */
export function parseIntentDocuments(
  text: string,
  options: ParseIntentOptions,
): IntentSnapshot & { readonly fatal: boolean } {
  const objects: IntentObject[] = [];
  const problems: SourceProblem[] = [];
  let node: NodeInfo | undefined;
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { prettyErrors: false, lineCounter: lines });
  const list = Array.isArray(docs) ? docs : [docs];
  for (const [i, doc] of list.entries()) {
    const where = `${options.where} document ${i + 1}`;
    if (doc.errors.length > 0) {
      const e = doc.errors[0]!;
      problems.push({ where, message: `line ${lines.linePos(e.pos[0]).line}: ${e.message.split('\n')[0]}` });
      return { objects: [], problems, fatal: true };
    }
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue; // an empty document (`---` at the end)
    const problem = objectShapeProblem(value);
    if (problem) {
      problems.push({ where, message: problem });
      continue;
    }
    const object = value as IntentObject;
    if (object.kind === 'Node') {
      if (options.nodeName !== undefined && object.metadata.name === options.nodeName)
        node = { name: object.metadata.name, labels: { ...(object.metadata.labels ?? {}) } };
      continue;
    }
    if (options.kinds && !options.kinds.has(object.kind)) continue;
    objects.push(object);
  }
  return { objects, problems, fatal: false, ...(node ? { node } : {}) };
}

function objectShapeProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || Array.isArray(value))
    return 'must be an object (apiVersion, kind, metadata, spec)';
  const o = value as Record<string, unknown>;
  if (typeof o.apiVersion !== 'string') return 'apiVersion: required (a string)';
  if (typeof o.kind !== 'string') return 'kind: required (a string)';
  const meta = o.metadata as Record<string, unknown> | undefined;
  if (typeof meta !== 'object' || meta === null || typeof meta.name !== 'string' || meta.name === '')
    return 'metadata.name: required (a string)';
  if (meta.labels !== undefined) {
    const labels = meta.labels as Record<string, unknown>;
    if (
      typeof labels !== 'object' ||
      labels === null ||
      Object.values(labels).some((v) => typeof v !== 'string')
    )
      return 'metadata.labels: must map strings to strings';
  }
  return undefined;
}

/** Pure: objects (a `kind: Node` document included, for its labels) as the multi-document YAML a file source reads. */
export function formatIntentDocuments(objects: readonly IntentObject[]): string {
  return objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
}

/**
 * Writes objects atomically into the file a file source reads (what agent-host's relay does for
 * the HBR container). Readers see the old file or the new one, never a part.
 */
export async function writeIntentFile(path: string, objects: readonly IntentObject[]): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, formatIntentDocuments(objects));
}
