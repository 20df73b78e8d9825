import { OvsdbProtocolError } from '../errors.js';

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isWhitespace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/**
 * Splits a byte stream of concatenated JSON texts into values. RFC 7047 has no framing: the
 * peers just write JSON objects back to back, so the decoder tracks nesting depth and string
 * state across chunks and parses each complete top-level object or array. It scans bytes, not
 * characters, so a UTF-8 sequence split across chunks is harmless (every structural character is
 * ASCII and never occurs inside a multi-byte sequence).
 */
export class JsonStreamDecoder {
  /** Bytes of the value being read that arrived in earlier chunks. */
  private pending: Buffer[] = [];
  private depth = 0;
  private inString = false;
  private escaped = false;

  /**
   * Feeds one chunk and calls `onValue` for each value it completes, in order. Throws
   * {@link OvsdbProtocolError} on anything that is not a JSON object or array (after handing
   * over the values before it); the decoder is unusable afterwards.
   */
  push(chunk: Buffer, onValue: (value: unknown) => void): void {
    let start = this.depth > 0 ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.depth === 0) {
        if (isWhitespace(b)) continue;
        if (b !== OPEN_BRACE && b !== OPEN_BRACKET) {
          throw new OvsdbProtocolError(
            `expected a JSON object from the server, got ${JSON.stringify(chunk.subarray(i, i + 40).toString('utf8'))}`,
          );
        }
        start = i;
        this.depth = 1;
        continue;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) this.escaped = true;
        else if (b === QUOTE) this.inString = false;
        continue;
      }
      if (b === QUOTE) this.inString = true;
      else if (b === OPEN_BRACE || b === OPEN_BRACKET) this.depth++;
      else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
        this.depth--;
        if (this.depth === 0) {
          const piece = chunk.subarray(start, i + 1);
          const text = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
          this.pending = [];
          onValue(parse(text));
          start = -1;
        }
      }
    }
    if (this.depth > 0 && start >= 0) this.pending.push(chunk.subarray(start));
  }

  /** Whether a value has started but not finished (bytes would be lost if the stream ended now). */
  get inValue(): boolean {
    return this.depth > 0;
  }
}

function parse(text: Buffer): unknown {
  try {
    return JSON.parse(text.toString('utf8'));
  } catch (cause) {
    throw new OvsdbProtocolError(
      `malformed JSON from the server: ${JSON.stringify(text.subarray(0, 80).toString('utf8'))}`,
      { cause },
    );
  }
}
