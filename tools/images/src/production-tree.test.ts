import { describe, expect, it } from 'vitest';
import { ProductionTreeError, isRuntimeFile, treePathOf } from './production-tree.js';

describe('treePathOf', () => {
  const places = new Map([
    ['/r/apps/agent-netns', 'app'],
    ['/r/packages/kube', 'node_modules/@fabrik/kube'],
  ]);
  const placeOf = (d: string) => places.get(d);

  it('keeps the workspace shape: app, linked workspace packages, root and nested node_modules', () => {
    expect(treePathOf('/r', '/r/packages/frr', placeOf, '@fabrik/frr')).toBe('node_modules/@fabrik/frr');
    expect(treePathOf('/r', '/r/node_modules/zod', placeOf)).toBe('node_modules/zod');
    expect(treePathOf('/r', '/r/node_modules/a/node_modules/b', placeOf)).toBe(
      'node_modules/a/node_modules/b',
    );
    expect(treePathOf('/r', '/r/apps/agent-netns/node_modules/pino', placeOf)).toBe('app/node_modules/pino');
    expect(treePathOf('/r', '/r/packages/kube/node_modules/@x/y', placeOf)).toBe(
      'node_modules/@fabrik/kube/node_modules/@x/y',
    );
  });

  it('refuses a package below a directory that is not packaged', () => {
    expect(() => treePathOf('/r', '/r/tools/lab/node_modules/q', placeOf)).toThrow(ProductionTreeError);
    expect(() => treePathOf('/r', '/r/elsewhere', placeOf)).toThrow(ProductionTreeError);
  });
});

describe('isRuntimeFile', () => {
  it('drops declarations, source maps, build info, tests and docs but keeps licences and code', () => {
    for (const f of [
      'dist/index.d.ts',
      'x.d.mts',
      'dist/a.js.map',
      'dist/.tsbuildinfo',
      'dist/a.test.js',
      'README.md',
    ])
      expect(isRuntimeFile(f), f).toBe(false);
    for (const f of ['dist/index.js', 'LICENSE.md', 'License', 'package.json', 'lib/x.cjs', 'bin/x.mjs'])
      expect(isRuntimeFile(f), f).toBe(true);
  });
});
