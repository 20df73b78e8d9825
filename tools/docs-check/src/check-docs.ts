// Checks the docs of a repository against the repository itself: every file a doc names exists,
// every `npm run` script it names is defined.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathReferences, scriptReferences } from './references.js';

/** One untrue claim of a doc: `README.md:12: names docs/missing.md, which does not exist`. */
export type DocProblem = { doc: string; line: number; message: string };

/** The docs a user reads, relative to the root: the README, CONTRIBUTING, docs/ and every package's README. */
export function docFiles(root: string): string[] {
  const inDir = (dir: string, pick: (name: string) => boolean) =>
    existsSync(join(root, dir))
      ? readdirSync(join(root, dir))
          .filter(pick)
          .sort()
          .map((name) => `${dir}/${name}`)
      : [];
  const packageReadmes = ['apps', 'packages', 'tools'].flatMap((dir) =>
    inDir(dir, () => true)
      .map((pkg) => `${pkg}/README.md`)
      .filter((file) => existsSync(join(root, file))),
  );
  return [
    ...['README.md', 'CONTRIBUTING.md'].filter((file) => existsSync(join(root, file))),
    ...inDir('docs', (name) => name.endsWith('.md')),
    ...packageReadmes,
  ];
}

function scriptsOf(packageJson: string): string[] {
  if (!existsSync(packageJson)) return [];
  const { scripts = {} } = JSON.parse(readFileSync(packageJson, 'utf8')) as { scripts?: object };
  return Object.keys(scripts);
}

/**
 * The problems of one doc (a path relative to the root). A package's README may name its own
 * scripts besides the root's: it is read from that package's directory.
 */
export function checkDoc(root: string, doc: string): DocProblem[] {
  const markdown = readFileSync(join(root, doc), 'utf8');
  const docDir = dirname(join(root, doc));
  const scripts = new Set([
    ...scriptsOf(join(root, 'package.json')),
    ...(docDir === root ? [] : scriptsOf(join(docDir, 'package.json'))),
  ]);
  const problems: DocProblem[] = [];
  for (const { line, path, relativeTo } of pathReferences(markdown)) {
    const target = resolve(relativeTo === 'doc' ? docDir : root, path);
    if (!existsSync(target))
      problems.push({ doc, line, message: `names ${relative(root, target)}, which does not exist` });
  }
  for (const { line, script } of scriptReferences(markdown)) {
    if (!scripts.has(script))
      problems.push({ doc, line, message: `names \`npm run ${script}\`, which no package.json defines` });
  }
  return problems;
}

/** The problems of every doc of the repository. */
export function checkDocs(root: string): DocProblem[] {
  return docFiles(root).flatMap((doc) => checkDoc(root, doc));
}

export const problemText = ({ doc, line, message }: DocProblem) => `${doc}:${line}: ${message}`;
