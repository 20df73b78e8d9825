import type { Operation } from './wire/index.js';

/** Base class of every error the OVSDB client and the OVS operations throw. */
export abstract class OvsdbError extends Error {
  abstract readonly code: string;
}

/** The endpoint cannot be reached, or the connection closed (the CNI plugin maps it to code 11). */
export class OvsdbConnectionError extends OvsdbError {
  readonly code = 'OVSDB_CONNECTION' as const;
  constructor(
    readonly endpoint: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${endpoint}: ${message}`, options);
    this.name = 'OvsdbConnectionError';
  }
}

/** A request, or a wait operation, did not finish in time. */
export class OvsdbTimeoutError extends OvsdbError {
  readonly code = 'OVSDB_TIMEOUT' as const;
  constructor(
    message: string,
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super(`${message} (after ${timeoutMs} ms)`, options);
    this.name = 'OvsdbTimeoutError';
  }
}

/** The server sent something that is not valid JSON-RPC or not the shape RFC 7047 specifies. */
export class OvsdbProtocolError extends OvsdbError {
  readonly code = 'OVSDB_PROTOCOL' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OvsdbProtocolError';
  }
}

function describeRpcError(error: unknown): string {
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null && 'error' in error) {
    const e = error as { error: unknown; details?: unknown };
    return `${String(e.error)}${typeof e.details === 'string' ? `: ${e.details}` : ''}`;
  }
  return JSON.stringify(error);
}

/** The server answered a JSON-RPC request with an `error` (unknown database, unknown method, ...). */
export class OvsdbRpcError extends OvsdbError {
  readonly code = 'OVSDB_RPC' as const;
  constructor(
    readonly method: string,
    readonly error: unknown,
  ) {
    super(`${method}: ${describeRpcError(error)}`);
    this.name = 'OvsdbRpcError';
  }
}

/** The kinds of per-operation error RFC 7047 (section 5.2.x) and ovsdb-server define. */
export type OvsdbOperationErrorKind =
  | 'constraint-violation'
  | 'referential-integrity-violation'
  | 'resources-exhausted'
  | 'io-error'
  | 'duplicate-uuid-name'
  | 'domain-error'
  | 'range-error'
  | 'timed-out'
  | 'not-supported'
  | 'aborted'
  | 'not-owner'
  | 'syntax-error'
  | 'other';

const KINDS: Readonly<Record<string, OvsdbOperationErrorKind>> = {
  'constraint violation': 'constraint-violation',
  'referential integrity violation': 'referential-integrity-violation',
  'resources exhausted': 'resources-exhausted',
  'I/O error': 'io-error',
  'duplicate uuid-name': 'duplicate-uuid-name',
  'domain error': 'domain-error',
  'range error': 'range-error',
  'timed out': 'timed-out',
  'not supported': 'not-supported',
  aborted: 'aborted',
  'not owner': 'not-owner',
  'syntax error': 'syntax-error',
};

/**
 * One operation of a transaction failed, so the whole transaction was rolled back. `index` is the
 * failing operation's position in the transaction; an error found only at commit time (for
 * example a duplicate name in an indexed column) has `index === ops.length` and no `op`.
 */
export class OvsdbOperationError extends OvsdbError {
  readonly code = 'OVSDB_OPERATION' as const;
  /** OVSDB's own error string, classified. */
  readonly kind: OvsdbOperationErrorKind;
  constructor(
    readonly index: number,
    readonly op: Operation | undefined,
    /** OVSDB's error string, for example `constraint violation`. */
    readonly error: string,
    /** OVSDB's details, when it sent any. */
    readonly details: string | undefined,
  ) {
    const where = op
      ? `operation ${index} (${op.op} ${'table' in op ? op.table : ''})`
      : `commit (after operation ${index - 1})`;
    super(`${where} failed: ${error}${details ? `: ${details}` : ''}`);
    this.name = 'OvsdbOperationError';
    this.kind = KINDS[error] ?? 'other';
  }
}

/** A bridge, port or interface that the operation needs does not exist. */
export class OvsdbNotFoundError extends OvsdbError {
  readonly code = 'OVSDB_NOT_FOUND' as const;
  constructor(
    readonly table: string,
    /** Name of the missing bridge/port/interface. */
    readonly rowName: string,
  ) {
    super(`${table} ${JSON.stringify(rowName)} does not exist`);
    this.name = 'OvsdbNotFoundError';
  }
}

/** The row exists but was not created by fabrik (no `external_ids:fabrik-owner`): fabrik leaves it alone. */
export class OvsdbOwnershipError extends OvsdbError {
  readonly code = 'OVSDB_NOT_OWNED' as const;
  constructor(
    readonly table: string,
    /** Name of the foreign bridge/port. */
    readonly rowName: string,
  ) {
    super(
      `${table} ${JSON.stringify(rowName)} exists but is not owned by fabrik (no external_ids:fabrik-owner); not changing it`,
    );
    this.name = 'OvsdbOwnershipError';
  }
}

/** The requested state contradicts the database, for example a port name already used on another bridge. */
export class OvsdbConflictError extends OvsdbError {
  readonly code = 'OVSDB_CONFLICT' as const;
  constructor(message: string) {
    super(message);
    this.name = 'OvsdbConflictError';
  }
}

/** An argument is invalid; `field` names it. Nothing was changed. */
export class OvsdbInvalidInputError extends OvsdbError {
  readonly code = 'OVSDB_INVALID_INPUT' as const;
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'OvsdbInvalidInputError';
  }
}

/** ovs-vswitchd could not set up an interface; `interfaceError` is the Interface row's `error` column. */
export class OvsInterfaceError extends OvsdbError {
  readonly code = 'OVS_INTERFACE_ERROR' as const;
  constructor(
    readonly interfaceName: string,
    readonly interfaceError: string | undefined,
  ) {
    super(
      `interface ${JSON.stringify(interfaceName)}: ${interfaceError ?? 'ovs-vswitchd assigned no OpenFlow port (ofport -1)'}`,
    );
    this.name = 'OvsInterfaceError';
  }
}

export const isOvsdbError = (e: unknown): e is OvsdbError => e instanceof OvsdbError;
export const isOvsdbConnectionError = (e: unknown): e is OvsdbConnectionError =>
  e instanceof OvsdbConnectionError;
export const isOvsdbTimeoutError = (e: unknown): e is OvsdbTimeoutError => e instanceof OvsdbTimeoutError;
export const isOvsdbProtocolError = (e: unknown): e is OvsdbProtocolError => e instanceof OvsdbProtocolError;
export const isOvsdbRpcError = (e: unknown): e is OvsdbRpcError => e instanceof OvsdbRpcError;
export const isOvsdbOperationError = (e: unknown): e is OvsdbOperationError =>
  e instanceof OvsdbOperationError;
export const isOvsdbConstraintViolation = (e: unknown): e is OvsdbOperationError =>
  e instanceof OvsdbOperationError && e.kind === 'constraint-violation';
export const isOvsdbReferentialIntegrityError = (e: unknown): e is OvsdbOperationError =>
  e instanceof OvsdbOperationError && e.kind === 'referential-integrity-violation';
export const isOvsdbNotFoundError = (e: unknown): e is OvsdbNotFoundError => e instanceof OvsdbNotFoundError;
export const isOvsdbOwnershipError = (e: unknown): e is OvsdbOwnershipError =>
  e instanceof OvsdbOwnershipError;
export const isOvsdbConflictError = (e: unknown): e is OvsdbConflictError => e instanceof OvsdbConflictError;
export const isOvsdbInvalidInputError = (e: unknown): e is OvsdbInvalidInputError =>
  e instanceof OvsdbInvalidInputError;
export const isOvsInterfaceError = (e: unknown): e is OvsInterfaceError => e instanceof OvsInterfaceError;
