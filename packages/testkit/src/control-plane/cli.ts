// `npm run -s apiserver -- [--port <p>] [--dir <d>] [--crds <dir>]... [--host <address>]`: the real
// control plane (etcd + kube-apiserver, RBAC always on) in the foreground. The first line printed
// is the kubeconfig path, so a script can read it and point kubectl at the server (`-s` keeps npm's
// banner out of stdout). SIGINT/SIGTERM stop it with its data kept in <dir>; SIGUSR1 compacts etcd
// and restarts kube-apiserver (every watch is cut, resuming from before gets 410). <dir>/apiserver.pid
// holds this process's id.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startKubeApiServer } from './server.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    dir: { type: 'string' },
    crds: { type: 'string', multiple: true },
    host: { type: 'string', default: '127.0.0.1' },
  },
  strict: true,
});

if (!/^\d+$/.test(values.port)) {
  console.error('apiserver: --port takes a number');
  process.exit(2);
}

const server = await startKubeApiServer({
  port: Number(values.port),
  host: values.host,
  ...(values.dir !== undefined ? { dir: values.dir } : {}),
  ...(values.crds !== undefined ? { crdDirs: values.crds } : {}),
  report: false,
});
writeFileSync(join(server.dir, 'apiserver.pid'), `${process.pid}\n`);
console.log(server.kubeconfigPath);
console.log(
  `apiserver: ${await server.kubectl('version', '-o', 'json').then((o) => (JSON.parse(o) as { serverVersion: { gitVersion: string } }).serverVersion.gitVersion)} serving ${server.url} (data in ${server.dir}); Ctrl-C stops`,
);
process.on('SIGUSR1', () => {
  void server.compact().then(() => console.log('apiserver: etcd compacted, kube-apiserver restarted'));
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.stop().then(() => process.exit(0));
  });
}
