// A second process for reload.host.test.ts (an operator's tool, say): takes the reload lock of
// pathspace PATHSPACE with withFrrReloadLock, prints "locked", and holds it until its standard
// input closes or it is killed.
import { withFrrReloadLock } from '../runtime/pathspace-files.js';

const [pathspace = ''] = process.argv.slice(2);
await withFrrReloadLock({ pathspace }, async () => {
  process.stdout.write('locked\n');
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.once('end', resolve));
});
