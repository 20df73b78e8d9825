import { isDeepStrictEqual } from 'node:util';
import { isRecord } from './rest.js';

// JSON merge patch (RFC 7386) computed from what is there to what should be there. The status writer
// sends it as `{status: {<section>: patch}}`: objects are merged key by key, so other sections are
// never part of the request; lists and scalars are replaced whole; keys that should go away are sent
// as null.

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** The value as it travels as JSON: undefined members dropped, dates as strings. */
export function toJson(value: unknown): JsonValue | undefined {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as JsonValue);
}

/** Equality as JSON: key order and undefined members do not count. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(toJson(a), toJson(b));
}

/**
 * The merge patch that turns `current` into `desired`, or undefined when they are equal. `null` in
 * `desired` cannot be expressed (it means "delete" in a merge patch) and is treated as absent.
 */
export function createMergePatch(current: unknown, desired: unknown): JsonValue | undefined {
  const from = toJson(current);
  const to = toJson(desired);
  if (isDeepStrictEqual(from, to)) return undefined;
  if (!isRecord(from) || !isRecord(to)) return to ?? null;
  const patch: { [key: string]: JsonValue } = {};
  for (const [key, value] of Object.entries(to)) {
    if (value === null) {
      if (key in from) patch[key] = null;
      continue;
    }
    const sub = key in from ? createMergePatch(from[key], value) : value;
    if (sub !== undefined) patch[key] = sub;
  }
  for (const key of Object.keys(from)) {
    if (!(key in to)) patch[key] = null;
  }
  return Object.keys(patch).length === 0 ? undefined : patch;
}
