// Paths of intent fields as users write them, in errors and documentation.

/** `vrfs[1].import[0].le` */
export function pathText(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out || '(root)';
}
