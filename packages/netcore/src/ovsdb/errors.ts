import { FabrikError, errorGuard } from '../errors.js';
import type { Operation } from './wire/index.js';

/** Base class of every error the OVSDB client and the OVS operations throw. */
export abstract class OvsdbError<Code extends string = string> extends FabrikError<Code> {}

/** The endpoint cannot be reached, or the connection closed (the CNI plugin maps it to code 11). */
export class OvsdbConnectionError extends OvsdbError<'OVSDB_CONNECTION'> {
  override readonly name = 'OvsdbConnectionError';
  constructor(
    readonly endpoint: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('OVSDB_CONNECTION', `${endpoint}: ${message}`, options);
  }
}

/** A request, or a wait operation, did not finish in time. */
export class OvsdbTimeoutError extends OvsdbError<'OVSDB_TIMEOUT'> {
  override readonly name = 'OvsdbTimeoutError';
  constructor(
    message: string,
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super('OVSDB_TIMEOUT', `${message} (after ${timeoutMs} ms)`, options);
  }
}

/** The server sent something that is not valid JSON-RPC or not the shape RFC 7047 specifies. */
export class OvsdbProtocolError extends OvsdbError<'OVSDB_PROTOCOL'> {
  override readonly name = 'OvsdbProtocolError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('OVSDB_PROTOCOL', message, options);
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
export class OvsdbRpcError extends OvsdbError<'OVSDB_RPC'> {
  override readonly name = 'OvsdbRpcError';
  constructor(
    readonly method: string,
    readonly error: unknown,
  ) {
    super('OVSDB_RPC', `${method}: ${describeRpcError(error)}`);
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
export class OvsdbOperationError extends OvsdbError<'OVSDB_OPERATION'> {
  override readonly name = 'OvsdbOperationError';
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
    super('OVSDB_OPERATION', `${where} failed: ${error}${details ? `: ${details}` : ''}`);
    this.kind = KINDS[error] ?? 'other';
  }
}

/** A bridge, port or interface that the operation needs does not exist. */
export class OvsdbNotFoundError extends OvsdbError<'OVSDB_NOT_FOUND'> {
  override readonly name = 'OvsdbNotFoundError';
  constructor(
    readonly table: string,
    /** Name of the missing bridge/port/interface. */
    readonly rowName: string,
  ) {
    super('OVSDB_NOT_FOUND', `${table} ${JSON.stringify(rowName)} does not exist`);
  }
}

/**
 * The row exists but is not the caller's: marked by another owner (`foundOwner`), or not by fabrik
 * at all (`foundOwner` undefined). It is left alone.
 */
export class OvsdbOwnershipError extends OvsdbError<'OVSDB_NOT_OWNED'> {
  override readonly name = 'OvsdbOwnershipError';
  constructor(
    readonly table: string,
    /** Name of the foreign bridge/port. */
    readonly rowName: string,
    /** The owner the caller acts for. */
    readonly owner: string,
    /** The row's `external_ids:fabrik-owner`, if it has one. */
    readonly foundOwner: string | undefined,
  ) {
    super(
      'OVSDB_NOT_OWNED',
      `${table} ${JSON.stringify(rowName)} exists but is not owned by ${JSON.stringify(owner)} (${
        foundOwner === undefined
          ? 'no external_ids:fabrik-owner'
          : `fabrik-owner=${JSON.stringify(foundOwner)}`
      }); not changing it`,
    );
  }
}

/** The requested state contradicts the database, for example a port name already used on another bridge. */
export class OvsdbConflictError extends OvsdbError<'OVSDB_CONFLICT'> {
  override readonly name = 'OvsdbConflictError';
  constructor(message: string) {
    super('OVSDB_CONFLICT', message);
  }
}

/** An argument is invalid; `field` names it. Nothing was changed. */
export class OvsdbInvalidInputError extends OvsdbError<'OVSDB_INVALID_INPUT'> {
  override readonly name = 'OvsdbInvalidInputError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super('OVSDB_INVALID_INPUT', `${field}: ${message}`);
  }
}

/** ovs-vswitchd could not set up an interface; `interfaceError` is the Interface row's `error` column. */
export class OvsInterfaceError extends OvsdbError<'OVS_INTERFACE_ERROR'> {
  override readonly name = 'OvsInterfaceError';
  constructor(
    readonly interfaceName: string,
    readonly interfaceError: string | undefined,
  ) {
    super(
      'OVS_INTERFACE_ERROR',
      `interface ${JSON.stringify(interfaceName)}: ${interfaceError ?? 'ovs-vswitchd assigned no OpenFlow port (ofport -1)'}`,
    );
  }
}

/** The database does not show a reconciled desired state in time; `remaining` lists what differs. */
export class OvsdbNotConvergedError extends OvsdbError<'OVSDB_NOT_CONVERGED'> {
  override readonly name = 'OvsdbNotConvergedError';
  constructor(
    readonly remaining: readonly string[],
    readonly timeoutMs: number,
  ) {
    super(
      'OVSDB_NOT_CONVERGED',
      `the database still differs from the desired state after ${timeoutMs} ms: ${remaining.join('; ')}`,
    );
  }
}

export const isOvsdbError = errorGuard(OvsdbError);
export const isOvsdbConnectionError = errorGuard(OvsdbConnectionError);
export const isOvsdbTimeoutError = errorGuard(OvsdbTimeoutError);
export const isOvsdbProtocolError = errorGuard(OvsdbProtocolError);
export const isOvsdbRpcError = errorGuard(OvsdbRpcError);
export const isOvsdbOperationError = errorGuard(OvsdbOperationError);
export const isOvsdbConstraintViolation = (e: unknown): e is OvsdbOperationError =>
  e instanceof OvsdbOperationError && e.kind === 'constraint-violation';
export const isOvsdbReferentialIntegrityError = (e: unknown): e is OvsdbOperationError =>
  e instanceof OvsdbOperationError && e.kind === 'referential-integrity-violation';
export const isOvsdbNotFoundError = errorGuard(OvsdbNotFoundError);
export const isOvsdbOwnershipError = errorGuard(OvsdbOwnershipError);
export const isOvsdbConflictError = errorGuard(OvsdbConflictError);
export const isOvsdbInvalidInputError = errorGuard(OvsdbInvalidInputError);
export const isOvsInterfaceError = errorGuard(OvsInterfaceError);
export const isOvsdbNotConvergedError = errorGuard(OvsdbNotConvergedError);
