import { describe, expect, it } from 'vitest';
import { checkFrrConfig } from './check.js';

describe('checkFrrConfig (vtysh -C)', () => {
  it('accepts a valid configuration', async () => {
    expect(
      await checkFrrConfig(
        'frr defaults datacenter\n!\nrouter bgp 65000\n bgp router-id 10.0.0.1\nexit\n!\n',
      ),
    ).toEqual({ ok: true });
  });
  it('returns FRR message and line for a rejected one, with passwords redacted', async () => {
    const result = await checkFrrConfig('router bgp 65000\n neighbr 192.0.2.2 password s3cret\nexit\n');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      {
        line: 2,
        message: expect.stringMatching(/^% Unknown command.*neighbr 192\.0\.2\.2 password <redacted>$/),
      },
    ]);
    expect(result.message).not.toContain('s3cret');
  });
});
