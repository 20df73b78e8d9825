import { describe, expect, it } from 'vitest';
import { FabrikError, errorGuard, isFabrikError } from './errors.js';

class ExampleError extends FabrikError<'EXAMPLE'> {
  override readonly name = 'ExampleError';
  constructor(
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super('EXAMPLE', `example: ${detail}`, options);
  }
}

describe('FabrikError', () => {
  const cause = new Error('root cause');
  const e = new ExampleError('x', { cause });

  it('carries code, message, name and cause', () => {
    expect(e).toBeInstanceOf(Error);
    expect(e).toMatchObject({ code: 'EXAMPLE', message: 'example: x', name: 'ExampleError', detail: 'x' });
    expect(e.cause).toBe(cause);
    expect(String(e)).toBe('ExampleError: example: x');
  });
  it('isFabrikError tells fabrik errors, and one code, from the rest', () => {
    expect(isFabrikError(e)).toBe(true);
    expect(isFabrikError(e, 'EXAMPLE')).toBe(true);
    expect(isFabrikError(e, 'OTHER')).toBe(false);
    expect(isFabrikError(new Error('plain'))).toBe(false);
    expect(isFabrikError({ code: 'EXAMPLE', message: 'look-alike' }, 'EXAMPLE')).toBe(false);
  });
  it('errorGuard makes the isX() guard of a class', () => {
    const isExampleError = errorGuard(ExampleError);
    expect(isExampleError(e)).toBe(true);
    expect(isExampleError(new FabrikError('EXAMPLE', 'base only'))).toBe(false);
  });
});
