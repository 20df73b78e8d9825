/** An OVSDB atomic type (RFC 7047 section 3.2, `<atomic-type>`). */
export type AtomicType = 'string' | 'integer' | 'real' | 'boolean' | 'uuid';

/**
 * How a column is shaped, after the schema's `min`/`max`:
 * - `atom`: exactly one value (min 1, max 1)
 * - `optional`: zero or one value (min 0, max 1), decoded as `T | undefined`
 * - `set`: any other set, decoded as an array
 * - `map`: key/value pairs, decoded as a record (string keys) or a Map (other keys)
 */
export type ColumnType =
  | { readonly kind: 'atom' | 'optional' | 'set'; readonly key: AtomicType; readonly refTable?: string }
  | {
      readonly kind: 'map';
      readonly key: AtomicType;
      readonly value: AtomicType;
      readonly refTable?: string;
      readonly valueRefTable?: string;
    };

/** Column types of one table, by column name (including `_uuid`). */
export type TableColumns = Readonly<Record<string, ColumnType>>;
