import { describe, expect, it } from 'vitest';
import { isFabrikError } from '@fabrik/api';
import {
  apiErrorFor,
  isAlreadyExistsError,
  isConflictError,
  isForbiddenError,
  isGoneError,
  isInvalidError,
  isKubeError,
  isNotFoundError,
  isRequestRejectedError,
  isServerError,
  isTransientError,
  isUnauthorizedError,
  isUnreachableError,
  type InvalidError,
} from './errors.js';
import { statusFromBody, transportError } from './rest.js';

describe('apiErrorFor', () => {
  it('gives FabrikErrors with the KUBE_ code of the answer', () => {
    const error = apiErrorFor('GET /api/v1/nodes/n1', {
      code: 404,
      reason: 'NotFound',
      message: 'not found',
    });
    expect(isFabrikError(error, 'KUBE_NOT_FOUND')).toBe(true);
    expect(error.name).toBe('NotFoundError');
  });

  it.each([
    [401, undefined, isUnauthorizedError],
    [403, 'Forbidden', isForbiddenError],
    [404, 'NotFound', isNotFoundError],
    [409, 'Conflict', isConflictError],
    [409, 'AlreadyExists', isAlreadyExistsError],
    [410, 'Expired', isGoneError],
    [422, 'Invalid', isInvalidError],
    [429, 'TooManyRequests', isServerError],
    [503, 'ServiceUnavailable', isServerError],
    [400, 'BadRequest', isRequestRejectedError],
    [415, 'UnsupportedMediaType', isRequestRejectedError],
  ])('%i %s', (code, reason, guard) => {
    const error = apiErrorFor('GET /api/v1/nodes/x', { code, ...(reason && { reason }) });
    expect(guard(error)).toBe(true);
    expect(isKubeError(error)).toBe(true);
    expect(error.statusCode).toBe(code);
    expect(error.message).toContain('GET /api/v1/nodes/x');
  });

  it('only one guard holds for a conflict: Conflict and AlreadyExists are told apart', () => {
    const conflict = apiErrorFor('PUT x', { code: 409, reason: 'Conflict' });
    expect(isAlreadyExistsError(conflict)).toBe(false);
  });
});

describe('statusFromBody', () => {
  it('reads a Status with its field causes', () => {
    const body = {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: 422,
      reason: 'Invalid',
      message: 'VRF.network.fabrik.dev "red" is invalid: spec.vni: Invalid value: 0',
      details: {
        causes: [{ field: 'spec.vni', reason: 'FieldValueInvalid', message: 'Invalid value: 0' }, 'junk'],
      },
    };
    const error = apiErrorFor('POST vrfs', statusFromBody(422, body)) as InvalidError;
    expect(error.causes).toEqual([
      { field: 'spec.vni', reason: 'FieldValueInvalid', message: 'Invalid value: 0' },
    ]);
    expect(error.message).toContain('spec.vni');
  });

  it('makes a Status up from the HTTP code when the body is none (a proxy, an HTML page)', () => {
    expect(statusFromBody(502, undefined, '<html>Bad Gateway</html>')).toEqual({
      code: 502,
      message: '<html>Bad Gateway</html>',
    });
  });
});

describe('transportError', () => {
  const systemError = (code: string): Error =>
    Object.assign(new Error(`connect ${code} 127.0.0.1:6443`), { code });

  it.each([
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'ENOTFOUND',
    'EHOSTUNREACH',
    'ERR_TLS_CERT_ALTNAME_INVALID',
  ])('%s is unreachable, and transient', (code) => {
    const error = transportError('GET x', systemError(code));
    expect(isUnreachableError(error)).toBe(true);
    expect(isTransientError(error)).toBe(true);
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it('finds the system code on a wrapped cause (node-fetch FetchError)', () => {
    const wrapped = Object.assign(new Error('request to https://x failed'), {
      type: 'system',
      cause: systemError('ECONNREFUSED'),
    });
    expect(isUnreachableError(transportError('GET x', wrapped))).toBe(true);
  });

  it('a timeout (AbortError / TimeoutError) is unreachable, naming the timeout', () => {
    const abort = Object.assign(new Error('The operation was aborted.'), { name: 'AbortError' });
    const error = transportError('GET x', abort, 250);
    expect(isUnreachableError(error)).toBe(true);
    expect((error as Error).message).toContain('no answer within 250 ms');
  });

  it('anything else is passed on unchanged', () => {
    const bug = new TypeError('x is not a function');
    expect(transportError('GET x', bug)).toBe(bug);
  });
});
