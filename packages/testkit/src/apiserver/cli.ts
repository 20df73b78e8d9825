// `npm run -s apiserver -- --port <p> --dir <d> [--crds <dir>]... [--rbac] [--http] [--history <n>]
//   [--host <listen address>] [--advertise-address <address clients use>]`:
// runs the test API server in the foreground. The first line printed is the kubeconfig path, so a
// script can read it and point kubectl at the server (`-s` keeps npm's own banner out of stdout).
// SIGINT/SIGTERM stop it with its state saved; SIGUSR1 compacts its history (every watch is cut and
// resuming from an older resourceVersion gets 410), for tests that run it as a separate process.
// <dir>/apiserver.pid holds its process id.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startApiServer } from './server.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    dir: { type: 'string' },
    crds: { type: 'string', multiple: true },
    host: { type: 'string', default: '127.0.0.1' },
    'advertise-address': { type: 'string' },
    rbac: { type: 'boolean', default: false },
    http: { type: 'boolean', default: false },
    history: { type: 'string', default: '1000' },
  },
  strict: true,
});

if (!/^\d+$/.test(values.port) || !/^\d+$/.test(values.history)) {
  console.error('apiserver: --port and --history take numbers');
  process.exit(2);
}

const server = await startApiServer({
  port: Number(values.port),
  host: values.host,
  ...(values['advertise-address'] !== undefined ? { advertiseAddress: values['advertise-address'] } : {}),
  ...(values.dir !== undefined ? { dir: values.dir } : {}),
  ...(values.crds !== undefined ? { crdDirs: values.crds } : {}),
  rbac: values.rbac,
  tls: !values.http,
  historyLimit: Number(values.history),
});
writeFileSync(join(server.dir, 'apiserver.pid'), `${process.pid}\n`);
console.log(server.kubeconfigPath);
console.log(`apiserver: serving ${server.url} (state in ${server.dir}); Ctrl-C stops`);
process.on('SIGUSR1', () => {
  server.compact();
  console.log('apiserver: history compacted');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.stop().then(() => process.exit(0));
  });
}
