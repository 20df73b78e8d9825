import { describe, expect, it } from 'vitest';
import { parseNodeNetworkStatusSection } from '@fabrik/api';
import { hostSection, type HostOutcome } from './status.js';

const ok: HostOutcome = {
  objectErrors: [],
  problems: [],
  layer2Networks: { web: 2 },
  owned: { ovsBridge: 1, ovsPort: 3, vlan: 0 },
};
const t1 = new Date('2026-11-30T10:00:00.123Z');
const t2 = new Date('2026-11-30T10:05:00Z');

describe('hostSection', () => {
  it('reports a provisioned node, valid against the NodeNetworkStatus schema', () => {
    const { section, transitioned, condition } = hostSection(ok, undefined, t1);
    expect(parseNodeNetworkStatusSection(section).ok).toBe(true);
    expect(section).toMatchObject({
      configStatus: 'provisioned',
      appliedGenerations: { layer2Networks: { web: 2 } },
      ownedObjects: { ovsBridge: 1, ovsPort: 3, vlan: 0 },
    });
    expect(section.errorMessage).toBeUndefined();
    expect(condition).toMatchObject({
      type: 'FabrikHostReady',
      status: 'True',
      reason: 'Provisioned',
      lastTransitionTime: '2026-11-30T10:00:00Z',
    });
    expect(transitioned).toBe(true);
  });

  it('keeps the transition time while the status stays, and moves it when it changes', () => {
    const first = hostSection(ok, undefined, t1);
    const skipped = hostSection(
      {
        ...ok,
        objectErrors: [{ kind: 'Layer2Network', name: 'bad', field: 'spec.vlan', message: 'too big' }],
      },
      first.section.conditions,
      t2,
    );
    expect(skipped.transitioned).toBe(false); // still True: a bad object does not make the node unready
    expect(skipped.condition).toMatchObject({
      reason: 'ObjectsSkipped',
      lastTransitionTime: '2026-11-30T10:00:00Z',
    });
    expect(skipped.section.configStatus).toBe('degraded');
    const failed = hostSection(
      { ...ok, error: 'ovsdb unix:/x: not connected yet' },
      skipped.section.conditions,
      t2,
    );
    expect(failed.transitioned).toBe(true);
    expect(failed.condition).toMatchObject({
      status: 'False',
      reason: 'ApplyFailed',
      lastTransitionTime: '2026-11-30T10:05:00Z',
    });
    expect(failed.section.errorMessage).toBe('ovsdb unix:/x: not connected yet');
    const degraded = hostSection(
      { ...ok, problems: ['interface eth9: could not open network device eth9 (No such device)'] },
      undefined,
      t2,
    );
    expect(degraded.condition).toMatchObject({ status: 'False', reason: 'Degraded' });
    expect(parseNodeNetworkStatusSection(degraded.section).ok).toBe(true);
  });
});
