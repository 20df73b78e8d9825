// Errors as kube-apiserver reports them: a metav1.Status body with code, reason and details.
import type { JsonObject } from './json.js';
import { FabrikError } from '@fabrik/api';

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'Timeout'
  | 'InternalError';

export interface StatusCause {
  reason: string;
  message: string;
  field: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
}

/** A request failed the way the real API server would fail it; `toStatus()` is the response body. */
export class ApiError extends FabrikError<number> {
  override readonly name = 'ApiError';
  readonly reason: StatusReason;
  readonly details: StatusDetails | undefined;

  /** `code` is the HTTP status, as in a Kubernetes Status. */
  constructor(code: number, reason: StatusReason, message: string, details?: StatusDetails) {
    super(code, message);
    this.reason = reason;
    this.details = details;
  }

  toStatus(): JsonObject {
    return statusObject('Failure', this.message, this.reason, this.code, this.details);
  }
}

export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}

export function statusObject(
  status: 'Success' | 'Failure',
  message: string | undefined,
  reason: string | undefined,
  code: number,
  details?: StatusDetails,
): JsonObject {
  const body: JsonObject = { kind: 'Status', apiVersion: 'v1', metadata: {}, status };
  if (message !== undefined) body.message = message;
  if (reason !== undefined) body.reason = reason;
  if (details !== undefined) body.details = details as JsonObject;
  body.code = code;
  return body;
}

/** `nodes "n1"` or `vrfs.network.fabrik.dev "red"`: how kube names a resource in messages. */
function qualifiedResource(group: string, resource: string): string {
  return group === '' ? resource : `${resource}.${group}`;
}

export function notFound(group: string, resource: string, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualifiedResource(group, resource)} "${name}" not found`, {
    name,
    group,
    kind: resource,
  });
}

export function alreadyExists(group: string, resource: string, name: string): ApiError {
  return new ApiError(
    409,
    'AlreadyExists',
    `${qualifiedResource(group, resource)} "${name}" already exists`,
    {
      name,
      group,
      kind: resource,
    },
  );
}

export function conflict(group: string, resource: string, name: string, why: string): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(group, resource)} "${name}": ${why}`,
    { name, group, kind: resource },
  );
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

export function expired(message: string): ApiError {
  return new ApiError(410, 'Expired', message);
}

/** A field-level validation error, formatted as apimachinery's field.Error. */
export interface FieldError {
  /** FieldValueInvalid, FieldValueRequired, ... */
  type: string;
  field: string;
  /** The text after "<field>: ", e.g. `Invalid value: 5000: spec.vlan in body should be ...`. */
  body: string;
}

export function invalid(kind: string, group: string, name: string, errors: FieldError[]): ApiError {
  const list = errors.map((e) => `${e.field}: ${e.body}`);
  const joined = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
  const qualifiedKind = group === '' ? kind : `${kind}.${group}`;
  return new ApiError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${joined}`, {
    name,
    group,
    kind,
    causes: errors.map((e) => ({ reason: e.type, message: e.body, field: e.field })),
  });
}
