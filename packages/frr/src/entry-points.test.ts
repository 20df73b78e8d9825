import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// @fabrik/frr/renderer is the pure half: a pipeline imports it to render without pulling in
// the modules that run FRR's programs. This follows the static imports of each entry point
// through the package's own files and lists what they import from outside.

const src = dirname(fileURLToPath(import.meta.url));
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'|(?:^|\n)\s*import\s+'([^']+)'/g;

/** The package's files an entry point reaches, and the modules they import from outside it. */
function moduleGraph(entry: string): { files: string[]; external: string[] } {
  const files = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? '';
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else external.add(spec);
    }
  };
  visit(join(src, entry));
  return {
    files: [...files].map((f) => f.slice(src.length + 1)).sort(),
    external: [...external].sort(),
  };
}

describe('entry points', () => {
  it('the renderer reaches no process code: nothing of runtime/, netcore or child_process', () => {
    const graph = moduleGraph('renderer.ts');
    expect(graph.files).toContain('model/index.ts');
    expect(graph.files.filter((f) => f.startsWith('runtime/'))).toEqual([]);
    expect(graph.external).toEqual(['@fabrik/api', 'handlebars', 'node:fs', 'node:path', 'node:url']);
  });

  it('the runtime is where FRR programs are run (through netcore)', () => {
    expect(moduleGraph('runtime/index.ts').external).toContain('@fabrik/netcore');
  });
});
