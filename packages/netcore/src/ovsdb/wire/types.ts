// RFC 7047 wire types (section 5.1 "Notation"): what goes into and comes out of JSON-RPC messages.

/** `["uuid", "<uuid>"]`: a reference to an existing row. */
export type Uuid = readonly ['uuid', string];
/** `["named-uuid", "<id>"]`: a reference to a row inserted earlier in the same transaction. */
export type NamedUuid = readonly ['named-uuid', string];
/** A single value of an atomic type. */
export type Atom = string | number | boolean | Uuid | NamedUuid;
/** `["set", [...]]`; a one-element set may also be sent as the bare atom. */
export type OvsSet = readonly ['set', readonly Atom[]];
/** `["map", [[key, value], ...]]`. */
export type OvsMap = readonly ['map', readonly (readonly [Atom, Atom])[]];
/** Any column value on the wire. */
export type Value = Atom | OvsSet | OvsMap;
/** A row on the wire: column name to value. */
export type WireRow = Readonly<Record<string, Value>>;

export type ConditionFunction = '<' | '<=' | '==' | '!=' | '>=' | '>' | 'includes' | 'excludes';
/** `[column, function, value]` (RFC 7047 5.1 `<condition>`). */
export type Condition = readonly [column: string, fn: ConditionFunction, value: Value];

export type Mutator = '+=' | '-=' | '*=' | '/=' | '%=' | 'insert' | 'delete';
/** `[column, mutator, value]` (RFC 7047 5.1 `<mutation>`). */
export type Mutation = readonly [column: string, mutator: Mutator, value: Value];

export interface InsertOperation {
  readonly op: 'insert';
  readonly table: string;
  readonly row: WireRow;
  readonly 'uuid-name'?: string;
}
export interface SelectOperation {
  readonly op: 'select';
  readonly table: string;
  readonly where: readonly Condition[];
  readonly columns?: readonly string[];
}
export interface UpdateOperation {
  readonly op: 'update';
  readonly table: string;
  readonly where: readonly Condition[];
  readonly row: WireRow;
}
export interface MutateOperation {
  readonly op: 'mutate';
  readonly table: string;
  readonly where: readonly Condition[];
  readonly mutations: readonly Mutation[];
}
export interface DeleteOperation {
  readonly op: 'delete';
  readonly table: string;
  readonly where: readonly Condition[];
}
export interface WaitOperation {
  readonly op: 'wait';
  readonly table: string;
  readonly where: readonly Condition[];
  readonly columns: readonly string[];
  readonly until: '==' | '!=';
  readonly rows: readonly WireRow[];
  /** Milliseconds; 0 fails at once when the condition does not hold. Omitted: wait forever. */
  readonly timeout?: number;
}
export interface CommentOperation {
  readonly op: 'comment';
  readonly comment: string;
}
export interface AssertOperation {
  readonly op: 'assert';
  readonly lock: string;
}
export interface AbortOperation {
  readonly op: 'abort';
}

/** One operation of a `transact` request (RFC 7047 5.2). */
export type Operation =
  | InsertOperation
  | SelectOperation
  | UpdateOperation
  | MutateOperation
  | DeleteOperation
  | WaitOperation
  | CommentOperation
  | AssertOperation
  | AbortOperation;

/** One element of a `transact` reply. */
export interface OperationResult {
  readonly uuid?: Uuid;
  readonly count?: number;
  readonly rows?: readonly WireRow[];
  readonly error?: string;
  readonly details?: string;
}
