// The configuration fields a doc's tables name, and the fields a configuration schema has, as
// dotted paths (`underlay.neighbors[].bfd`). Pure: Markdown and JSON Schema in, paths out.

/** A field named in the first column of a table row. */
export type NamedField = { line: number; field: string };

const HEADING = /^(#+)\s+(.*)$/;
const FIELD = /^[a-zA-Z][\w]*(?:\[\])?(?:\.[a-zA-Z][\w]*(?:\[\])?)*$/;

/**
 * The fields named in the first column of the tables under the heading that starts with
 * `heading` (up to the next heading of the same or a higher level). Several fields may share a
 * cell (`metricsAddress`, `healthAddress`); a cell that continues the row above (`  .bridgeName`)
 * names no path of its own.
 */
export function tableFields(markdown: string, heading: string): NamedField[] {
  const fields: NamedField[] = [];
  let level = 0;
  markdown.split('\n').forEach((text, index) => {
    const h = HEADING.exec(text);
    if (h) {
      const depth = h[1]!.length;
      if (level > 0 && depth <= level) level = 0;
      if (h[2]!.startsWith(heading)) level = depth;
      return;
    }
    if (level === 0 || !text.startsWith('|') || /^\|\s*-/.test(text)) return;
    const firstCell = text.split('|')[1] ?? '';
    if (/^\s*field\b/.test(firstCell)) return;
    for (const [, code] of firstCell.matchAll(/`([^`]+)`/g)) {
      if (code !== undefined && FIELD.test(code)) fields.push({ line: index + 1, field: code });
    }
  });
  return fields;
}

/** JSON Schema as z.toJSONSchema writes it (the parts that hold fields). */
export type JsonSchema = {
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
};

/** Every field path of a schema: `a`, `a.b`, `list`, `list[].c` (the alternatives of a union merged). */
export function schemaFields(schema: JsonSchema, prefix = '', out = new Set<string>()): Set<string> {
  for (const alternative of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])])
    schemaFields(alternative, prefix, out);
  if (schema.items) schemaFields(schema.items, `${prefix}[]`, out);
  for (const [key, value] of Object.entries(schema.properties ?? {})) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    out.add(path);
    schemaFields(value, path, out);
  }
  return out;
}

/** `list[]` names the field `list`. */
const fieldOf = (named: string) => named.replace(/\[\]$/, '');

/** The named fields that the schema does not have. */
export function unknownFields(named: readonly NamedField[], fields: ReadonlySet<string>): NamedField[] {
  return named.filter(({ field }) => !fields.has(fieldOf(field)));
}

/** True when `path` is `field` or lies inside it (`a.b` in `a`, `list[].c` in `list`). */
const within = (path: string, field: string) =>
  path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[]`);

/**
 * The schema's fields that no named field documents: not itself, not a field that contains it,
 * and (for an object of fields) none of its own fields; those are then reported one by one.
 */
export function undocumentedFields(fields: ReadonlySet<string>, named: readonly NamedField[]): string[] {
  const documented = named.map(({ field }) => fieldOf(field));
  return [...fields].filter(
    (path) => !documented.some((field) => within(path, field) || within(field, path)),
  );
}
