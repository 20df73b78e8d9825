import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { IntentSource } from '@fabrik/api';
import { parseConfigText, withSecretNamespace } from './config.js';
import { isConfigError, type ConfigError } from './errors.js';

const Schema = z
  .object({
    nodeName: z.string().min(1),
    mode: z.enum(['netns', 'vrf-ibgp']).default('netns'),
    source: z.object({ kind: z.literal('file'), path: z.string() }).strict(),
    underlay: z.object({ password: z.string().optional(), port: z.number().int().max(65535) }).optional(),
  })
  .strict();

const configError = (fn: () => unknown): ConfigError => {
  try {
    fn();
  } catch (e) {
    if (isConfigError(e)) return e;
    throw e;
  }
  throw new Error('no ConfigError thrown');
};

describe('parseConfigText', () => {
  it('validates and applies the schema defaults', () => {
    const config = parseConfigText('nodeName: n1\nsource: { kind: file, path: /x.yaml }\n', 'a.yaml', Schema);
    expect(config).toEqual({ nodeName: 'n1', mode: 'netns', source: { kind: 'file', path: '/x.yaml' } });
  });

  it('fills a missing field from the environment, and the file wins over it', () => {
    const text = 'source: { kind: file, path: /x.yaml }\n';
    const opts = { env: { NODE_NAME: 'from-env' }, envDefaults: { nodeName: 'NODE_NAME' } };
    expect(parseConfigText(text, 'a.yaml', Schema, opts).nodeName).toBe('from-env');
    expect(parseConfigText(`nodeName: file\n${text}`, 'a.yaml', Schema, opts).nodeName).toBe('file');
  });

  it('fills nested fields from the environment', () => {
    const S = z.object({ source: z.object({ kind: z.string(), path: z.string() }) });
    const c = parseConfigText('source: { kind: file }\n', 'a.yaml', S, {
      env: { INTENT: '/i.yaml' },
      envDefaults: { 'source.path': 'INTENT' },
    });
    expect(c.source.path).toBe('/i.yaml');
  });

  it('names the file and every field at fault, never the rejected values', () => {
    const e = configError(() =>
      parseConfigText(
        'mode: bgp\nsource: { kind: file }\nunderlay: { password: hunter2, port: 70000 }\nextra: 1\n',
        '/etc/fabrik/agent.yaml',
        Schema,
        { env: {} },
      ),
    );
    expect(e.file).toBe('/etc/fabrik/agent.yaml');
    expect(e.issues.map((i) => i.path).sort()).toEqual(
      ['(root)', 'mode', 'nodeName', 'source.path', 'underlay.port'].sort(),
    );
    expect(e.message).toContain('/etc/fabrik/agent.yaml');
    expect(e.message).not.toContain('hunter2');
  });

  it('reports YAML syntax errors with their line', () => {
    const e = configError(() => parseConfigText('nodeName: a\nsource: [\n', 'bad.yaml', Schema));
    expect(e.issues[0]?.path).toBe('(file)');
    expect(e.issues[0]?.message).toMatch(/^line \d+:/);
  });

  it('refuses a document that is not a mapping', () => {
    const e = configError(() => parseConfigText('- a\n- b\n', 'list.yaml', Schema));
    expect(e.issues).toEqual([{ path: '(root)', message: 'must be a mapping of fields' }]);
  });

  it('refuses duplicate keys (a YAML mistake that would silently drop a value)', () => {
    const e = configError(() => parseConfigText('nodeName: a\nnodeName: b\n', 'dup.yaml', Schema));
    expect(e.issues[0]?.path).toBe('(file)');
  });
});

describe('withSecretNamespace', () => {
  const kube: IntentSource = { kind: 'kubernetes' };
  const namespaceOf = (source: IntentSource) =>
    source.kind === 'kubernetes' ? source.secretNamespace : undefined;
  it("takes the config's namespace, else env POD_NAMESPACE, else fabrik-system", () => {
    expect(withSecretNamespace({ ...kube, secretNamespace: 'bgp' }, { POD_NAMESPACE: 'x' }, 'f')).toEqual({
      ...kube,
      secretNamespace: 'bgp',
    });
    expect(namespaceOf(withSecretNamespace(kube, { POD_NAMESPACE: 'fabrik' }, 'f'))).toBe('fabrik');
    expect(namespaceOf(withSecretNamespace(kube, {}, 'f'))).toBe('fabrik-system');
    expect(namespaceOf(withSecretNamespace(kube, { POD_NAMESPACE: '' }, 'f'))).toBe('fabrik-system');
  });
  it('leaves a file source as it is (it reads no Secrets)', () => {
    const file = { kind: 'file' as const, path: '/run/intent.yaml', format: 'plain' as const };
    expect(withSecretNamespace(file, { POD_NAMESPACE: 'fabrik' }, 'f')).toBe(file);
  });
  it('refuses a POD_NAMESPACE that is no namespace name, naming the field', () => {
    const e = configError(() => withSecretNamespace(kube, { POD_NAMESPACE: 'Bad_NS' }, '/etc/a.yaml'));
    expect(e.file).toBe('/etc/a.yaml');
    expect(e.issues).toEqual([
      { path: 'source.secretNamespace', message: expect.stringContaining('env POD_NAMESPACE') },
    ]);
  });
});
