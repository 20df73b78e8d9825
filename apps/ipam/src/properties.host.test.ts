// Property (fast-check): random interleavings of ADD and DEL from several processes at once never
// give an address to two attachments, and leave the pool exactly as the calls say: an address for
// every attachment whose last call was ADD (the one that ADD returned), nothing else, usage right.
// Each runtime runs its own containers' calls one after the other, as a real one does; the runtimes
// run at the same time, so their calls interleave at random (as do the plugin processes' reads and
// writes of the pool). A fixed seed and a few runs keep `npm test` reproducible;
// FABRIK_PROPERTY_RUNS asks for more runs, FABRIK_PROPERTY_SEED for another seed.
import { parseAddress, poolSpace } from '@fabrik/ippool';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createIpamSandbox,
  createPool,
  execIpam,
  ipamConf,
  podArgs,
  type IpamSandbox,
} from '../test/harness.js';

const RUNS = Number(process.env['FABRIK_PROPERTY_RUNS'] ?? 3);
const SEED = Number(process.env['FABRIK_PROPERTY_SEED'] ?? 20261130);

let sb: IpamSandbox;
beforeAll(async () => {
  sb = await createIpamSandbox();
});
afterAll(() => sb?.remove());

/** One runtime's calls: ADD or DEL of one of its three attachments. */
const runtimeCalls = fc.array(fc.record({ add: fc.boolean(), container: fc.integer({ min: 0, max: 2 }) }), {
  minLength: 1,
  maxLength: 5,
});

describe('ADD and DEL from several processes at once', () => {
  let run = 0;
  it(
    'never an address twice; the pool ends as the last call of each attachment says',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(runtimeCalls, { minLength: 4, maxLength: 8 }), async (runtimes) => {
          const pool = `prop-${run++}`;
          await createPool(sb, pool, {
            ipRanges: [{ start: '10.80.0.10', end: '10.80.0.40' }],
            subnetInfo: { gateway: '10.80.0.1', prefixLength: 24 },
          });
          const conf = ipamConf(pool, { ippools: [pool] });
          /** The address each attachment's last successful ADD returned (undefined: DEL came last). */
          const last = new Map<string, string | undefined>();
          await Promise.all(
            runtimes.map(async (calls, r) => {
              for (const { add, container } of calls) {
                const id = `r${r}c${container}`;
                const attachment = {
                  containerId: id,
                  netns: `/run/netns/${id}`,
                  ifname: 'net1',
                  args: podArgs(id),
                };
                const out = await execIpam(sb, add ? 'ADD' : 'DEL', conf, attachment);
                expect(out.code, JSON.stringify(out.out)).toBe(0);
                const ips = (out.out?.['ips'] as Array<{ address: string }> | undefined) ?? [];
                // A repeated ADD returns the address the attachment has.
                if (add && last.get(id) !== undefined) expect(ips[0]?.address).toBe(last.get(id));
                last.set(id, add ? ips[0]?.address : undefined);
              }
            }),
          );
          const stored = await sb.pools.get(pool);
          const entries = stored.status?.ipAddresses ?? [];
          const values = entries.map((e) => parseAddress(e.ipAddress).value);
          expect(new Set(values).size).toBe(values.length);
          expect(new Map(entries.map((e) => [e.owner.pod?.containerID, `${e.ipAddress}/24`]))).toEqual(
            new Map([...last].filter((kv): kv is [string, string] => kv[1] !== undefined)),
          );
          if (stored.status)
            expect(stored.status.usage).toEqual({
              total: Number(poolSpace(stored.spec).size),
              used: entries.length,
            });
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    },
    Math.max(600_000, RUNS * 200_000),
  );
});
