// Typed errors of @fabrik/kube. Every class has a `code` callers can branch on and an `isX()` guard;
// causes are always passed on. API errors carry the Kubernetes Status the server answered with.
// They are @fabrik/api's FabrikError, as every error fabrik throws on purpose.
import { FabrikError } from '@fabrik/api';

/** A field-level cause of a 422 Invalid answer (`status.details.causes[]`). */
export interface StatusCause {
  /** The field path as the API server names it, for example `spec.vni`. */
  readonly field?: string;
  readonly reason?: string;
  readonly message?: string;
}

/** What the API server said about a failed request (a `Status` object), reduced to what callers use. */
export interface ApiStatus {
  readonly code: number;
  readonly reason?: string;
  readonly message?: string;
  readonly causes?: readonly StatusCause[];
}

/** Base class of every error @fabrik/kube throws (codes `KUBE_...`). */
export abstract class KubeError<Code extends `KUBE_${string}` = `KUBE_${string}`> extends FabrikError<Code> {}

/** Base class of the errors that carry an answer of the API server. */
export abstract class KubeApiError<Code extends `KUBE_${string}` = `KUBE_${string}`> extends KubeError<Code> {
  constructor(
    code: Code,
    /** `GET /apis/...`: what was asked. */
    readonly request: string,
    readonly status: ApiStatus,
    options?: { cause?: unknown },
  ) {
    super(
      code,
      `${request}: ${status.code}${status.reason ? ` ${status.reason}` : ''}: ${status.message ?? ''}`,
      options,
    );
  }
  get statusCode(): number {
    return this.status.code;
  }
}

/** 404: the object (or the resource) does not exist. */
export class NotFoundError extends KubeApiError<'KUBE_NOT_FOUND'> {
  override readonly name = 'NotFoundError';
  constructor(request: string, status: ApiStatus, options?: { cause?: unknown }) {
    super('KUBE_NOT_FOUND', request, status, options);
  }
}

/** 409 Conflict: the object changed since it was read (stale `resourceVersion`); re-read and retry. */
export class ConflictError extends KubeApiError<'KUBE_CONFLICT'> {
  override readonly name = 'ConflictError';
  constructor(request: string, status: ApiStatus, options?: { cause?: unknown }) {
    super('KUBE_CONFLICT', request, status, options);
  }
}

/** 409 AlreadyExists: a create found an object of that name. */
export class AlreadyExistsError extends KubeApiError<'KUBE_ALREADY_EXISTS'> {
  override readonly name = 'AlreadyExistsError';
  constructor(request: string, status: ApiStatus, options?: { cause?: unknown }) {
    super('KUBE_ALREADY_EXISTS', request, status, options);
  }
}

/** 410 Gone: the resourceVersion asked for is older than the server keeps (list again). */
export class GoneError extends KubeApiError<'KUBE_GONE'> {
  override readonly name = 'GoneError';
  constructor(request: string, status: ApiStatus, options?: { cause?: unknown }) {
    super('KUBE_GONE', request, status, options);
  }
}

/** 401: the server does not accept the credentials. */
export class UnauthorizedError extends KubeApiError<'KUBE_UNAUTHORIZED'> {
  override readonly name = 'UnauthorizedError';
  constructor(request: string, status: ApiStatus, options?: { cause?: unknown }) {
    super('KUBE_UNAUTHORIZED', request, status, options);
  }
}

/** 403: the credentials are not allowed to do this (RBAC). */
export class ForbiddenError extends KubeApiError<'KUBE_FORBIDDEN'> {
  override readonly name = 'ForbiddenError';
  constructor(request: string, status: ApiStatus, options?: { cause?: unknown }) {
    super('KUBE_FORBIDDEN', request, status, options);
  }
}

/** 422 Invalid: the server refused the object; `causes` name the fields. */
export class InvalidError extends KubeApiError<'KUBE_INVALID'> {
  override readonly name = 'InvalidError';
  constructor(request: string, status: ApiStatus, options?: { cause?: unknown }) {
    super('KUBE_INVALID', request, status, options);
  }
  get causes(): readonly StatusCause[] {
    return this.status.causes ?? [];
  }
}

/** 429 or 5xx: the server is overloaded or failing; worth retrying with backoff. */
export class ServerError extends KubeApiError<'KUBE_SERVER'> {
  override readonly name = 'ServerError';
  constructor(request: string, status: ApiStatus, options?: { cause?: unknown }) {
    super('KUBE_SERVER', request, status, options);
  }
}

/** Any other unsuccessful answer (400 Bad Request, 415 Unsupported Media Type, ...). */
export class RequestRejectedError extends KubeApiError<'KUBE_REQUEST_REJECTED'> {
  override readonly name = 'RequestRejectedError';
  constructor(request: string, status: ApiStatus, options?: { cause?: unknown }) {
    super('KUBE_REQUEST_REJECTED', request, status, options);
  }
}

/**
 * The API server could not be reached: connection refused or reset, name not resolved, TLS failure,
 * or no answer within the request timeout. fabrik-ipam maps it to CNI error code 11 (try again later).
 */
export class UnreachableError extends KubeError<'KUBE_UNREACHABLE'> {
  override readonly name = 'UnreachableError';
  constructor(
    readonly request: string,
    /** The system error code when there is one (`ECONNREFUSED`, `ETIMEDOUT`, ...), or `TIMEOUT`. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super('KUBE_UNREACHABLE', `${request}: API server unreachable (${reason})`, options);
  }
}

/** The server answered with an object that the caller's `parse` function refused. */
export class ObjectSchemaError extends KubeError<'KUBE_OBJECT_SCHEMA'> {
  override readonly name = 'ObjectSchemaError';
  constructor(
    /** `name` or `namespace/name` of the object. */
    readonly key: string,
    options?: { cause?: unknown },
  ) {
    super(
      'KUBE_OBJECT_SCHEMA',
      `object ${key} does not match its schema: ${describeCause(options?.cause)}`,
      options,
    );
  }
}

/** No usable cluster configuration: names what is missing (file, environment variable, field). */
export class KubeConfigError extends KubeError<'KUBE_CONFIG'> {
  override readonly name = 'KubeConfigError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('KUBE_CONFIG', message, options);
  }
}

/** An argument is invalid (label selector, condition, taint, name); `field` names it. */
export class InvalidArgumentError extends KubeError<'KUBE_INVALID_ARGUMENT'> {
  override readonly name = 'InvalidArgumentError';
  constructor(
    /** Path of the offending field, for example `nodeSelector.matchExpressions[0].values`. */
    readonly field: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super('KUBE_INVALID_ARGUMENT', `${field}: ${reason}`, options);
  }
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) return cause.message;
  return String(cause);
}

// Guards compare codes rather than classes, so they also recognise errors of a second copy of this
// package in one process (a bundled plugin next to the workspace sources).
const codeOf = (e: unknown): unknown => (e instanceof Error ? (e as { code?: unknown }).code : undefined);
const hasCode = (e: unknown, code: string): boolean => codeOf(e) === code;

export const isKubeError = (e: unknown): e is KubeError => {
  const code = codeOf(e);
  return typeof code === 'string' && code.startsWith('KUBE_');
};
export const isNotFoundError = (e: unknown): e is NotFoundError => hasCode(e, 'KUBE_NOT_FOUND');
export const isConflictError = (e: unknown): e is ConflictError => hasCode(e, 'KUBE_CONFLICT');
export const isAlreadyExistsError = (e: unknown): e is AlreadyExistsError =>
  hasCode(e, 'KUBE_ALREADY_EXISTS');
export const isGoneError = (e: unknown): e is GoneError => hasCode(e, 'KUBE_GONE');
export const isUnauthorizedError = (e: unknown): e is UnauthorizedError => hasCode(e, 'KUBE_UNAUTHORIZED');
export const isForbiddenError = (e: unknown): e is ForbiddenError => hasCode(e, 'KUBE_FORBIDDEN');
export const isInvalidError = (e: unknown): e is InvalidError => hasCode(e, 'KUBE_INVALID');
export const isServerError = (e: unknown): e is ServerError => hasCode(e, 'KUBE_SERVER');
export const isRequestRejectedError = (e: unknown): e is RequestRejectedError =>
  hasCode(e, 'KUBE_REQUEST_REJECTED');
export const isUnreachableError = (e: unknown): e is UnreachableError => hasCode(e, 'KUBE_UNREACHABLE');
export const isObjectSchemaError = (e: unknown): e is ObjectSchemaError => hasCode(e, 'KUBE_OBJECT_SCHEMA');
export const isKubeConfigError = (e: unknown): e is KubeConfigError => hasCode(e, 'KUBE_CONFIG');
export const isInvalidArgumentError = (e: unknown): e is InvalidArgumentError =>
  hasCode(e, 'KUBE_INVALID_ARGUMENT');

/** Errors a retry can cure without changing the request: the server unreachable, overloaded or failing. */
export const isTransientError = (e: unknown): boolean => isUnreachableError(e) || isServerError(e);

/** The error class for an unsuccessful answer of the API server. */
export function apiErrorFor(request: string, status: ApiStatus, options?: { cause?: unknown }): KubeApiError {
  switch (status.code) {
    case 401:
      return new UnauthorizedError(request, status, options);
    case 403:
      return new ForbiddenError(request, status, options);
    case 404:
      return new NotFoundError(request, status, options);
    case 409:
      return status.reason === 'AlreadyExists'
        ? new AlreadyExistsError(request, status, options)
        : new ConflictError(request, status, options);
    case 410:
      return new GoneError(request, status, options);
    case 422:
      return new InvalidError(request, status, options);
    default:
      return status.code === 429 || status.code >= 500
        ? new ServerError(request, status, options)
        : new RequestRejectedError(request, status, options);
  }
}
