import { watch, type FSWatcher } from 'node:fs';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { basename, dirname } from 'node:path';
import { LineCounter, parseAllDocuments, stringify } from 'yaml';
import { writeFileAtomic } from './atomic-file.js';
import type { IntentObject, IntentSnapshot, IntentSource, NodeInfo, SourceProblem } from './intent.js';
import { formatRelayFile, splitRelayFile } from './relay-format.js';

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
  /**
   * The file is agent-host's relay (relay-format.ts): a content without a valid relay header is
   * refused like one that is not YAML. Default: false (a hand-written file; a header, when there
   * is one, is checked all the same).
   */
  readonly requireRelayHeader?: boolean;
}

/**
 * An intent source reading one file, re-read whenever it changes: `fs.watch` on its directory
 * (a writer that replaces the file by rename, as {@link writeIntentFile} does, is seen), plus a
 * periodic stat as a fallback. A missing file means the source has not answered yet (nothing is
 * deleted because of it); an empty file means "no objects" (not for a relay file, which always has
 * a header). A file that is not YAML, or whose relay header does not check out (cut short, another
 * format version, a sequence older than one already read, a header gone), keeps the last good
 * snapshot and reports the problem; before a first good read the source has not answered.
 */
export function createFileSource(options: FileSourceOptions): IntentSource {
  const { path } = options;
  const dir = dirname(path);
  const name = basename(path);
  const kinds = options.kinds ? new Set(options.kinds) : undefined;
  let snapshot: IntentSnapshot = { objects: [], problems: [] };
  let synced = false;
  let lastHash: string | undefined;
  /** The relay sequence of the last good read; once seen, every later content must carry a header. */
  let lastSequence: number | undefined;
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
    // A relay file rewritten with the same objects (a new sequence) is no change.
    const hash = createHash('sha256')
      .update(intentDocumentsOf(text) ?? text)
      .digest('hex');
    if (hash === lastHash) return;
    lastHash = hash;
    const {
      fatal: unreadable,
      relaySequence,
      ...read
    } = parseIntentDocuments(text, {
      where: name,
      kinds,
      nodeName: options.nodeName,
      requireRelayHeader: options.requireRelayHeader === true || lastSequence !== undefined,
    });
    const stale =
      !unreadable &&
      lastSequence !== undefined &&
      relaySequence !== undefined &&
      relaySequence < lastSequence;
    const parsed = stale
      ? {
          ...read,
          problems: [
            ...read.problems,
            {
              where: name,
              message: `relay sequence ${relaySequence} is older than ${lastSequence}, already read: ignored`,
            },
          ],
        }
      : read;
    const fatal = unreadable || stale;
    if (!fatal && relaySequence !== undefined) lastSequence = relaySequence;
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
  /** A text without a relay header is `fatal` (the reader expects agent-host's relay file). */
  readonly requireRelayHeader?: boolean;
}

/**
 * Pure: the documents of a multi-document YAML text as objects. A document that is not an object
 * with `apiVersion`, `kind` and `metadata.name` is reported and skipped; `fatal` when the text is
 * not YAML at all, or its relay header (relay-format.ts) does not check out: another version, a
 * digest or a document count the rest does not match, none where one is required.
 * `relaySequence`: the header's sequence, when there is one.
 */
export function parseIntentDocuments(
  text: string,
  options: ParseIntentOptions,
): IntentSnapshot & { readonly fatal: boolean; readonly relaySequence?: number } {
  const relay = splitRelayFile(text);
  const fail = (message: string) => ({
    objects: [],
    problems: [{ where: options.where, message }],
    fatal: true,
  });
  if ('problem' in relay) return fail(relay.problem);
  if (relay.header === undefined && options.requireRelayHeader)
    return fail('no relay header (an empty or cut file, or not written by the relay): refused');
  const { documents, ...parsed } = parseDocuments(relay.body, options);
  if (relay.header === undefined || parsed.fatal) return parsed;
  if (documents !== relay.header.objects)
    return fail(`the relay header counts ${relay.header.objects} document(s), the file holds ${documents}`);
  return { ...parsed, relaySequence: relay.header.sequence };
}

function parseDocuments(
  text: string,
  options: ParseIntentOptions,
): IntentSnapshot & { readonly fatal: boolean; readonly documents: number } {
  const objects: IntentObject[] = [];
  const problems: SourceProblem[] = [];
  let node: NodeInfo | undefined;
  let documents = 0;
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { prettyErrors: false, lineCounter: lines });
  const list = Array.isArray(docs) ? docs : [docs];
  for (const [i, doc] of list.entries()) {
    const where = `${options.where} document ${i + 1}`;
    if (doc.errors.length > 0) {
      const e = doc.errors[0]!;
      problems.push({ where, message: `line ${lines.linePos(e.pos[0]).line}: ${e.message.split('\n')[0]}` });
      return { objects: [], problems, fatal: true, documents };
    }
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue; // an empty document (`---` at the end)
    documents++;
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
  return { objects, problems, fatal: false, documents, ...(node ? { node } : {}) };
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
 * the HBR container), as a relay file: a header with the next sequence (one more than the file's
 * now) and the digest. Readers see the old file or the new one, never a part.
 */
export async function writeIntentFile(path: string, objects: readonly IntentObject[]): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const sequence = (await relaySequenceOf(path)) + 1;
  await writeFileAtomic(path, formatRelayFile(formatIntentDocuments(objects), objects.length, sequence));
}

/** The sequence of the relay file at `path`, also of a damaged one (its readers may have seen it); 0 without one. */
async function relaySequenceOf(path: string): Promise<number> {
  const text = await readFile(path, 'utf8').catch(() => '');
  const relay = splitRelayFile(text);
  if ('header' in relay) return relay.header?.sequence ?? 0;
  return Number(/^ {2}sequence: (\d+)$/m.exec(text)?.[1] ?? 0);
}

/**
 * The object documents of a relay file, without its header (to compare with
 * {@link formatIntentDocuments}); undefined when `text` is no valid relay file (it needs writing).
 */
export function intentDocumentsOf(text: string | undefined): string | undefined {
  const relay = text === undefined ? undefined : splitRelayFile(text);
  return relay && 'header' in relay && relay.header !== undefined ? relay.body : undefined;
}
