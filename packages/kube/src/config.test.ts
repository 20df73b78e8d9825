import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadKubeConfig, SERVICE_ACCOUNT_DIR } from './config.js';
import { isKubeConfigError } from './errors.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fabrik-kube-config-'));
  vi.stubEnv('KUBECONFIG', '');
  vi.stubEnv('KUBERNETES_SERVICE_HOST', '');
  vi.stubEnv('KUBERNETES_SERVICE_PORT', '');
});
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

const kubeconfig = (
  opts: { context?: string; cluster?: string; server?: string; user?: string } = {},
): string => {
  const path = join(dir, 'kubeconfig');
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      `current-context: ${opts.context ?? 'test'}`,
      'clusters:',
      '- name: c1',
      '  cluster:',
      `    server: ${opts.server ?? 'https://127.0.0.1:6443'}`,
      'contexts:',
      '- name: test',
      `  context: {cluster: ${opts.cluster ?? 'c1'}, user: ${opts.user ?? 'u1'}}`,
      'users:',
      '- name: u1',
      '  user: {token: secret}',
      '',
    ].join('\n'),
  );
  return path;
};

function thrownBy(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('did not throw');
}

describe('loadKubeConfig', () => {
  it('loads a kubeconfig file given by path', () => {
    const path = kubeconfig();
    const { kc, source } = loadKubeConfig({ kubeconfig: path });
    expect(source).toEqual({ kind: 'file', path });
    expect(kc.getCurrentCluster()?.server).toBe('https://127.0.0.1:6443');
    expect(kc.getCurrentUser()?.token).toBe('secret');
  });

  it('takes the first path of env KUBECONFIG when no path is given', () => {
    const path = kubeconfig();
    vi.stubEnv('KUBECONFIG', `${path}:/nonexistent`);
    expect(loadKubeConfig().source).toEqual({ kind: 'file', path });
  });

  it.each([
    [{ context: 'other' }, /current-context "other" names no entry of contexts/],
    [{ cluster: 'c2' }, /context "test" names cluster "c2", which is not in clusters/],
    [{ user: 'u2' }, /context "test" names user "u2", which is not in users/],
  ])('names the broken reference in %j', (opts, message) => {
    const path = kubeconfig(opts);
    const error = thrownBy(() => loadKubeConfig({ kubeconfig: path }));
    expect(isKubeConfigError(error)).toBe(true);
    expect(error.message).toMatch(message);
    expect(error.message).toContain(path);
  });

  it('names a file that cannot be read', () => {
    const error = thrownBy(() => loadKubeConfig({ kubeconfig: join(dir, 'missing') }));
    expect(isKubeConfigError(error)).toBe(true);
    expect(error.message).toMatch(/kubeconfig .*missing: cannot be read \(ENOENT\)/);
  });

  it('without any configuration, lists everything in-cluster loading misses', () => {
    const error = thrownBy(() => loadKubeConfig({ root: dir }));
    expect(isKubeConfigError(error)).toBe(true);
    expect(error.message).toContain('env KUBERNETES_SERVICE_HOST');
    expect(error.message).toContain('env KUBERNETES_SERVICE_PORT');
    expect(error.message).toContain(`${dir}${SERVICE_ACCOUNT_DIR}/token`);
    expect(error.message).toContain(`${dir}${SERVICE_ACCOUNT_DIR}/ca.crt`);
  });

  it('in a Pod: the service account token and CA, the server from the environment', () => {
    const sa = join(dir, SERVICE_ACCOUNT_DIR);
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, 'token'), 'pod-token');
    writeFileSync(join(sa, 'ca.crt'), 'not really a CA');
    vi.stubEnv('KUBERNETES_SERVICE_HOST', 'fd00::1');
    vi.stubEnv('KUBERNETES_SERVICE_PORT', '443');
    const { kc, source } = loadKubeConfig({ root: dir });
    expect(source).toEqual({ kind: 'in-cluster', server: 'https://[fd00::1]:443' });
    expect(kc.getCurrentCluster()?.caFile).toBe(join(sa, 'ca.crt'));
    expect(kc.getCurrentUser()?.authProvider?.config?.tokenFile).toBe(join(sa, 'token'));
  });

  it('in a Pod with the token missing: names only that file', () => {
    const sa = join(dir, SERVICE_ACCOUNT_DIR);
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, 'ca.crt'), 'x');
    vi.stubEnv('KUBERNETES_SERVICE_HOST', '10.96.0.1');
    vi.stubEnv('KUBERNETES_SERVICE_PORT', '443');
    const error = thrownBy(() => loadKubeConfig({ root: dir }));
    expect(error.message).toMatch(/missing [^,]*serviceaccount\/token\)$/);
  });
});
