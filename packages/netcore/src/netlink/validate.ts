import type { z } from 'zod';
import { InvalidDesiredStateError } from './errors.js';

/** Parses `value` with `schema`; a failure names the first offending field (`links[2].vni`). */
export function validate<T>(schema: z.ZodType<T>, value: unknown, path = ''): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new InvalidDesiredStateError(joinPath(path, issue?.path ?? []), issue?.message ?? 'invalid', {
    cause: parsed.error,
  });
}

/** `links` + [2, 'vni'] -> `links[2].vni` */
export function joinPath(base: string, parts: readonly PropertyKey[]): string {
  let out = base;
  for (const p of parts) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out;
}
