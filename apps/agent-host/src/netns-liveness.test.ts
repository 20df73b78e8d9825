import { describe, expect, it } from 'vitest';
import type { NodeNetworkStatusSection } from '@fabrik/api';
import { withNetnsLiveness } from './netns-liveness.js';

const section: NodeNetworkStatusSection = {
  configStatus: 'provisioned',
  lastUpdate: '2026-12-02T10:00:00Z',
  conditions: [
    {
      type: 'FabrikNetnsReady',
      status: 'True',
      reason: 'Provisioned',
      message: 'all applied',
      lastTransitionTime: '2026-12-02T09:00:00Z',
    },
  ],
};

describe('withNetnsLiveness', () => {
  it('passes a fresh section on as agent-netns wrote it', () => {
    expect(withNetnsLiveness(section, new Date('2026-12-02T10:00:59Z'), 60_000)).toBe(section);
  });

  it('turns FabrikNetnsReady False in a section older than the limit, saying how old', () => {
    const stale = withNetnsLiveness(section, new Date('2026-12-02T10:01:30Z'), 60_000);
    expect(stale.configStatus).toBe('provisioned');
    expect(stale.conditions).toEqual([
      {
        type: 'FabrikNetnsReady',
        status: 'False',
        reason: 'NotReporting',
        message: expect.stringMatching(/^agent-netns has not reported for 90 s .*the limit is 60 s/),
        lastTransitionTime: '2026-12-02T10:01:30Z',
      },
    ]);
  });
});
