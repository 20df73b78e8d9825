/** Every spec version this skeleton can speak, oldest first. */
export const SPEC_VERSIONS = ['0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'] as const;
export type SpecVersion = (typeof SPEC_VERSIONS)[number];

export const isSpecVersion = (v: string): v is SpecVersion =>
  (SPEC_VERSIONS as readonly string[]).includes(v);

/** -1, 0 or 1 as `a` is older than, equal to or newer than `b` (numeric, dotted). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

/** Which verbs a spec version has (CHECK came with 0.4.0, GC and STATUS with 1.1.0). */
export function specHas(version: string, feature: 'check' | 'gc' | 'status'): boolean {
  return compareVersions(version, feature === 'check' ? '0.4.0' : '1.1.0') >= 0;
}

/**
 * The version to use for a config that lists several (`cniVersions` in a conflist): the newest
 * one both sides speak, as libcni does.
 */
export function negotiateVersion(
  offered: readonly string[],
  supported: readonly string[],
): string | undefined {
  return [...offered]
    .filter((v) => supported.includes(v))
    .sort(compareVersions)
    .at(-1);
}
