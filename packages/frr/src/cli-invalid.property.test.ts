import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { propertyRunOptions } from '@fabrik/testkit/arbitraries';
import { validFrrIntentArbitrary as frrIntentArbitrary } from '../test/intent-arbitrary.js';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT, runFrrCli } from './cli-run.js';
import type { FrrIntentInput } from './intent.js';

// Generated invalid intents: a valid one with one field broken. `fabrik-frr render` must exit 2
// and name that field, never print a configuration, never echo a password.
type Corruption = (intent: FrrIntentInput) => { intent: unknown; path: string };

const neighbors = (i: FrrIntentInput) => i.underlay?.neighbors ?? [];
const CORRUPTIONS: Record<string, Corruption> = {
  'asn out of range': (i) => ({ intent: { ...i, asn: 0 }, path: 'asn' }),
  'a reserved AS number': (i) => ({ intent: { ...i, asn: 23456 }, path: 'asn' }),
  'a community of the reserved well-known range': (i) => ({
    intent: { ...i, fabricLoopGuard: { enabled: true, community: '65535:65535' } },
    path: 'fabricLoopGuard.community',
  }),
  'router-id not an address': (i) => ({ intent: { ...i, routerId: '10.0.0.256' }, path: 'routerId' }),
  'a reserved VRF name': (i) => ({ intent: { ...i, hbrVrf: 'route-map' }, path: 'hbrVrf' }),
  'an interface named like an address': (i) => ({
    intent: {
      ...i,
      underlay: {
        ...i.underlay,
        neighbors: [...neighbors(i), { interface: '10.0.0.1', remoteAs: 'external' }],
      },
    },
    path: `underlay.neighbors[${neighbors(i).length}].interface`,
  }),
  'a neighbor twice': (i) => ({
    intent: {
      ...i,
      underlay: {
        ...i.underlay,
        neighbors: [
          ...neighbors(i),
          { address: '192.0.2.77', remoteAs: 'external' },
          { address: '192.0.2.77', remoteAs: 65001 },
        ],
      },
    },
    path: `underlay.neighbors[${neighbors(i).length + 1}].address`,
  }),
  'a password with a NUL': (i) => ({
    intent: {
      ...i,
      underlay: {
        ...i.underlay,
        neighbors: [
          ...neighbors(i),
          { address: '192.0.2.78', remoteAs: 'external', password: 'se\u0000cret' },
        ],
      },
    },
    path: `underlay.neighbors[${neighbors(i).length}].password`,
  }),
  'a host aggregate': (i) => ({
    intent: {
      ...i,
      vrfs: [
        ...(i.vrfs ?? []),
        { name: 'zz', vni: 16_000_000, routeTarget: '1:1', aggregates: ['10.0.0.1/32'] },
      ],
    },
    path: `vrfs[${(i.vrfs ?? []).length}].aggregates[0]`,
  }),
  'a VLAN out of range': (i) => ({
    intent: { ...i, layer2s: [...(i.layer2s ?? []), { vni: 16_000_001, vlan: 4095, routeTarget: '1:1' }] },
    path: `layer2s[${(i.layer2s ?? []).length}].vlan`,
  }),
  'an unknown field': (i) => ({ intent: { ...i, bgpPassword: 'x' }, path: '(root)' }),
};

const dir = mkdtempSync(join(tmpdir(), 'fabrik-frr-invalid-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('fabrik-frr render with generated invalid intents', () => {
  it.each(Object.keys(CORRUPTIONS))('%s: exit 2 naming the field', { timeout: 120_000 }, async (name) => {
    const corrupt = CORRUPTIONS[name] ?? ((i) => ({ intent: i, path: '' }));
    await fc.assert(
      fc.asyncProperty(frrIntentArbitrary(), async (valid) => {
        const { intent, path } = corrupt(valid);
        const file = join(dir, 'intent.json');
        writeFileSync(file, JSON.stringify(intent));
        let stdout = '';
        let stderr = '';
        const code = await runFrrCli(['render', '--intent', file], {
          stdout: (t) => (stdout += t),
          stderr: (t) => (stderr += t),
        });
        expect({ code, stdout }).toEqual({ code: EXIT.invalidIntent, stdout: '' });
        expect(stderr).toContain(`\n  ${path}: `);
        expect(stderr).not.toContain('se\u0000cret');
      }),
      propertyRunOptions(10),
    );
  });
});
