import { describe, expect, it } from 'vitest';
import { leaseDecision } from './lease.js';

const now = new Date('2026-12-02T10:00:30Z');
const lease = (holderIdentity: string | null, renewTime: string | null, leaseDurationSeconds = 15) => ({
  metadata: { name: 'fabrik-operator' },
  spec: { holderIdentity, renewTime, leaseDurationSeconds },
});

describe('leaseDecision', () => {
  it.each([
    ['no Lease', undefined, 'take'],
    ['a Lease nobody holds', lease(null, null), 'take'],
    ['a Lease handed back', lease('', '2026-12-02T10:00:29.000000Z'), 'take'],
    ['its own Lease', lease('me', '2026-12-02T10:00:29.000000Z'), 'renew'],
    ['a Lease another replica renewed 10 s ago', lease('other', '2026-12-02T10:00:20.000000Z'), 'wait'],
    ['a Lease another replica last renewed 16 s ago', lease('other', '2026-12-02T10:00:14.000000Z'), 'take'],
    ['a Lease without renewTime', lease('other', null), 'take'],
  ] as const)('%s: %s', (_what, input, expected) => {
    expect(leaseDecision(input, 'me', now)).toBe(expected);
  });
});
