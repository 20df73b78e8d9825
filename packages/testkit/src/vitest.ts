import { onTestFinished } from 'vitest';
import { createTempNetns, type TempNetns } from './netns-sandbox.js';

// Helpers bound to the running vitest test. A separate entry point (@fabrik/testkit/vitest) so
// that scripts outside vitest (the lab demo) can use the rest of the testkit.

/** A temporary netns that is deleted when the current test finishes, passed or failed. */
export async function createTestNetns(prefix?: string): Promise<TempNetns> {
  const ns = await createTempNetns(prefix);
  onTestFinished(() => ns.destroy());
  return ns;
}
