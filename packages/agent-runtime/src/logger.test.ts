import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, REDACTED } from './logger.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString('utf8').split('\n')) if (l) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { lines, destination };
}

describe('createLogger', () => {
  it('redacts passwords and tokens at any of the first levels, keeps the rest', () => {
    const c = capture();
    const log = createLogger({ name: 'agent-test', level: 'info', destination: c.destination });
    log.info(
      {
        password: 'p0',
        config: { token: 't1', underlay: { neighbors: { password: 'p2' } } },
        kube: { user: { 'client-key-data': 'k' } },
        asn: 65000,
      },
      'hello',
    );
    const line = c.lines[0]!;
    const text = JSON.stringify(line);
    for (const secret of ['p0', 't1', 'p2', '"k"']) expect(text).not.toContain(secret);
    expect(line).toMatchObject({
      name: 'agent-test',
      msg: 'hello',
      asn: 65000,
      password: REDACTED,
      config: { token: REDACTED, underlay: { neighbors: { password: REDACTED } } },
    });
  });
});
