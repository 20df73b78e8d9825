// The files a test control plane authenticates with, made with openssl once per directory: the
// serving certificate (self-signed, also the clients' CA), the ServiceAccount signing key pair and
// the admin's static token.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { runCommand } from '@fabrik/netcore';

export interface ControlPlanePki {
  readonly certPath: string;
  readonly keyPath: string;
  /** PEM of the serving certificate: the CA clients trust. */
  readonly certPem: string;
  readonly serviceAccountKeyPath: string;
  readonly serviceAccountPublicKeyPath: string;
  /** kube-apiserver's --token-auth-file: the admin token, group system:masters. */
  readonly tokenFilePath: string;
  readonly adminToken: string;
}

/** The serving certificate for `names` (IP addresses or DNS names), made anew when they change. */
async function ensureServingCertificate(dir: string, names: readonly string[]): Promise<void> {
  const certPath = join(dir, 'apiserver.crt');
  const namesPath = join(dir, 'apiserver.names');
  const subjectAltName = names.map((n) => (isIP(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
  const current = existsSync(namesPath) ? readFileSync(namesPath, 'utf8') : undefined;
  if (existsSync(certPath) && current === subjectAltName) return;
  await runCommand('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    join(dir, 'apiserver.key'),
    '-out',
    certPath,
    '-days',
    '3650',
    '-subj',
    '/CN=fabrik-test-apiserver',
    '-addext',
    `subjectAltName=${subjectAltName}`,
  ]);
  writeFileSync(namesPath, subjectAltName);
}

async function ensureServiceAccountKeys(dir: string): Promise<void> {
  const key = join(dir, 'sa.key');
  if (existsSync(key) && existsSync(join(dir, 'sa.pub'))) return;
  await runCommand('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key]);
  await runCommand('openssl', ['ec', '-in', key, '-pubout', '-out', join(dir, 'sa.pub')]);
}

/** Makes what is missing in `dir` and returns the paths; what exists (a restart) is kept. */
export async function ensureControlPlanePki(dir: string, names: readonly string[]): Promise<ControlPlanePki> {
  await ensureServingCertificate(dir, names);
  await ensureServiceAccountKeys(dir);
  const tokenFilePath = join(dir, 'tokens.csv');
  if (!existsSync(tokenFilePath)) {
    writeFileSync(tokenFilePath, `${randomBytes(24).toString('hex')},admin,admin,"system:masters"\n`, {
      mode: 0o600,
    });
  }
  return {
    certPath: join(dir, 'apiserver.crt'),
    keyPath: join(dir, 'apiserver.key'),
    certPem: readFileSync(join(dir, 'apiserver.crt'), 'utf8'),
    serviceAccountKeyPath: join(dir, 'sa.key'),
    serviceAccountPublicKeyPath: join(dir, 'sa.pub'),
    tokenFilePath,
    adminToken: readFileSync(tokenFilePath, 'utf8').split(',')[0]!,
  };
}

/** A kubeconfig for `url` that authenticates with a bearer token. */
export function kubeconfigYaml(url: string, token: string, user: string, caPem: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: fabrik-test',
    '  cluster:',
    `    server: ${url}`,
    `    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}`,
    'users:',
    `- name: ${user}`,
    '  user:',
    `    token: ${token}`,
    'contexts:',
    '- name: fabrik-test',
    '  context:',
    '    cluster: fabrik-test',
    `    user: ${user}`,
    'current-context: fabrik-test',
    '',
  ].join('\n');
}
