// `npm run apiserver -- --port <p> --dir <d> [--crds <dir>]... [--rbac] [--http] [--history <n>]`:
// runs the test API server in the foreground. The first line printed is the kubeconfig path, so a
// script can read it and point kubectl at the server; SIGINT/SIGTERM stop it with its state saved.
import { parseArgs } from 'node:util';
import { startApiServer } from './server.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    dir: { type: 'string' },
    crds: { type: 'string', multiple: true },
    host: { type: 'string', default: '127.0.0.1' },
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
  ...(values.dir !== undefined ? { dir: values.dir } : {}),
  ...(values.crds !== undefined ? { crdDirs: values.crds } : {}),
  rbac: values.rbac,
  tls: !values.http,
  historyLimit: Number(values.history),
});
console.log(server.kubeconfigPath);
console.log(`apiserver: serving ${server.url} (state in ${server.dir}); Ctrl-C stops`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.stop().then(() => process.exit(0));
  });
}
