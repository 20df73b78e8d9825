// A second process for lock.host.test.ts: takes lockFile(PATH) with TIMEOUT_MS, prints
// "locked", holds the lock until its standard input closes, then releases it. Prints
// "timeout" and exits 3 when the lock stays taken.
import { isFileLockTimeoutError, lockFile } from '../lock.js';

const [path = '', timeoutMs = '5000'] = process.argv.slice(2);
try {
  const lock = await lockFile(path, { timeoutMs: Number(timeoutMs) });
  process.stdout.write('locked\n');
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.once('end', resolve));
  await lock.release();
} catch (e) {
  if (!isFileLockTimeoutError(e)) throw e;
  process.stdout.write('timeout\n');
  process.exitCode = 3;
}
