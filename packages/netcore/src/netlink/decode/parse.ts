import type { z } from 'zod';
import { NetlinkDecodeError } from '../errors.js';

/** Parses iproute2 JSON output with `schema`; empty output (no objects) is an empty list. */
export function parseIpJson<T>(what: string, stdout: string, schema: z.ZodType<T>): T {
  let json: unknown;
  try {
    json = stdout.trim() === '' ? [] : JSON.parse(stdout);
  } catch (e) {
    throw new NetlinkDecodeError(what, 'output is not JSON', { cause: e });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new NetlinkDecodeError(
      what,
      `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'unexpected shape'}`,
      { cause: parsed.error },
    );
  }
  return parsed.data;
}
