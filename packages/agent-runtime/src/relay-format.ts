import { createHash } from 'node:crypto';
import { parse } from 'yaml';

// The relay's intent file (agent-host writes it, agent-netns reads it) starts with a header
// document: the format version, a sequence that grows with every write, the number of objects and
// the SHA-256 of everything after the header. A reader checks all of it before it believes the
// file: a truncated, emptied or hand-damaged file is refused (the last good intent is kept)
// instead of read as "these objects are gone".

/** The relay format this agent writes and reads. */
export const RELAY_FORMAT_VERSION = 1;
const HEADER_API_VERSION = 'relay.fabrik.dev/v1';
const HEADER_KIND = 'RelayHeader';
const SEPARATOR = '---\n';

export interface RelayHeader {
  readonly version: number;
  /** Grows with every write of the file (1, 2, ...). */
  readonly sequence: number;
  /** Object documents after the header. */
  readonly objects: number;
  /** `sha256:<hex>` of the text after the header's separator. */
  readonly digest: string;
}

const digestOf = (body: string) => `sha256:${createHash('sha256').update(body).digest('hex')}`;

/** The relay file of `body` (the object documents, `count` of them), written as the `sequence`-th (pure). */
export function formatRelayFile(body: string, count: number, sequence: number): string {
  const header = [
    `apiVersion: ${HEADER_API_VERSION}`,
    `kind: ${HEADER_KIND}`,
    'metadata:',
    '  name: intent',
    'spec:',
    `  version: ${RELAY_FORMAT_VERSION}`,
    `  sequence: ${sequence}`,
    `  objects: ${count}`,
    `  digest: ${digestOf(body)}`,
    '',
  ].join('\n');
  return `${header}${SEPARATOR}${body}`;
}

export type RelayFile =
  /** No header: a file written by hand (or by an agent before the relay format). */
  | { readonly header: undefined; readonly body: string }
  | { readonly header: RelayHeader; readonly body: string }
  /** A header that cannot be believed, and why. */
  | { readonly problem: string };

/**
 * The header and body of an intent file (pure). A text that starts like a header (even a prefix
 * of one: a file cut short) is a relay file and must check out whole; `count` is the number of
 * object documents the body holds (the caller parses them).
 */
export function splitRelayFile(text: string): RelayFile {
  const marker = `apiVersion: ${HEADER_API_VERSION}`;
  const looksRelayed = text.startsWith(marker) || (text.length > 0 && marker.startsWith(text.trimEnd()));
  if (!looksRelayed) return { header: undefined, body: text };
  const end = text.indexOf(`\n${SEPARATOR}`);
  if (end < 0) return { problem: 'the relay header is cut short (no document after it)' };
  let spec: Record<string, unknown> | undefined;
  try {
    const doc = parse(text.slice(0, end + 1)) as { kind?: unknown; spec?: Record<string, unknown> } | null;
    if (doc?.kind === HEADER_KIND) spec = doc.spec;
  } catch {
    spec = undefined;
  }
  const { version, sequence, objects, digest } = spec ?? {};
  if (
    !Number.isInteger(version) ||
    !Number.isInteger(sequence) ||
    !Number.isInteger(objects) ||
    typeof digest !== 'string'
  )
    return { problem: 'the relay header is not readable (version, sequence, objects, digest)' };
  if (version !== RELAY_FORMAT_VERSION)
    return {
      problem: `relay format version ${String(version)} is not this agent's (${RELAY_FORMAT_VERSION}): upgrade the agents together`,
    };
  const body = text.slice(end + 1 + SEPARATOR.length);
  if (digestOf(body) !== digest)
    return {
      problem: 'the relay file does not match its digest (cut short or changed after it was written)',
    };
  return {
    header: {
      version: RELAY_FORMAT_VERSION,
      sequence: sequence as number,
      objects: objects as number,
      digest,
    },
    body,
  };
}
