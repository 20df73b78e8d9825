import { describe, expect, it } from 'vitest';
import { createTempNetns } from './netns-sandbox.js';
import { startFrr } from './frr.js';

describe('startFrr', () => {
  it('kills daemons and starts them again with the boot configuration, as watchfrr would', async () => {
    const ns = await createTempNetns('fabrik-frr-');
    const frr = await startFrr({ netns: ns.name });
    try {
      await frr.vtysh('configure terminal', 'router bgp 65001', 'bgp router-id 192.0.2.9');
      expect(await frr.runningConfig()).toMatch(/^router bgp 65001$/m);
      await frr.killDaemons('bgpd', 'zebra');
      await expect(frr.vtysh('show version')).rejects.toThrow();
      await frr.startDaemons('zebra', 'bgpd');
      // What was configured at run time is gone: the daemons read only the boot configuration.
      expect(await frr.runningConfig()).not.toMatch(/router bgp/);
    } finally {
      await frr.stop();
      await ns.destroy();
    }
  });
});
