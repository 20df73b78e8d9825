// What a Markdown doc claims exists: the repository files it links or names, and the npm scripts
// it tells the reader to run. Pure: text in, references out (line numbers 1-based).

/** A repository file or directory a doc names, as written (relative to the doc or to the root). */
export type PathReference = { line: number; path: string; relativeTo: 'doc' | 'root' };
/** An `npm run NAME` a doc tells the reader to run. */
export type ScriptReference = { line: number; script: string };

/**
 * Top-level directories of the repository. A code token that starts with one of them is taken
 * for a repository path; other tokens (`/etc/frr`, `tr.<vid>`, `src/x.ts` in a package README)
 * are not checked, since they name files on a node or relative to something the check cannot know.
 */
const REPO_DIRS = ['apps', 'packages', 'tools', 'deploy', 'docs', 'examples', 'e2e', '.changeset', '.ci'];
const REPO_PATH = new RegExp(
  `^(?:\\./)?(?:${REPO_DIRS.map((d) => d.replace('.', '\\.')).join('|')})/[\\w./@+-]*$`,
);
/** Placeholders and patterns, not paths: `tr.<vid>`, `packages/*`, `${x}`, `a/{b,c}`, `...`. */
const PATTERN = /[<>*{}$]|\.\.\./;
/** Build outputs (`npm run build` writes them, git ignores them): named by docs, absent from a clone. */
const BUILD_OUTPUT = /(^|\/)dist(\/|$)/;
const LINK = /\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
const CODE_SPAN = /`([^`]+)`/g;
const NPM_RUN = /\bnpm run(?:\s+-s)?\s+([\w:.-]+)/g;

/** Link targets that point outside the repository or inside the same page. */
const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#');

/** `path#anchor` -> `path`; `path:12` (a line) -> `path`; trailing punctuation dropped. */
function pathPart(token: string): string {
  return token
    .replace(/#.*$/, '')
    .replace(/:\d+(?:-\d+)?$/, '')
    .replace(/[.,;:)]+$/, '');
}

/** Tokens of code (spans and fenced blocks) that name repository paths. */
function codePaths(code: string): string[] {
  return code
    .split(/\s+/)
    .map((token) => token.replace(/^["'(]+|["')]+$/g, ''))
    .filter((token) => !PATTERN.test(token) && !BUILD_OUTPUT.test(token))
    .map(pathPart)
    .filter((token) => REPO_PATH.test(token));
}

/** Every repository path a doc names: link targets (relative to the doc) and code (relative to the root). */
export function pathReferences(markdown: string): PathReference[] {
  const references: PathReference[] = [];
  let fenced = false;
  markdown.split('\n').forEach((text, index) => {
    const line = index + 1;
    if (/^\s*(```|~~~)/.test(text)) {
      fenced = !fenced;
      return;
    }
    if (fenced) {
      for (const path of codePaths(text)) references.push({ line, path, relativeTo: 'root' });
      return;
    }
    for (const [, target] of text.matchAll(LINK)) {
      if (target === undefined || isExternal(target)) continue;
      const path = pathPart(target);
      if (path !== '') references.push({ line, path, relativeTo: 'doc' });
    }
    for (const [, code] of text.matchAll(CODE_SPAN)) {
      for (const path of codePaths(code ?? '')) references.push({ line, path, relativeTo: 'root' });
    }
  });
  return references;
}

/** Every `npm run NAME` of a doc, in prose, code spans and fenced blocks alike. */
export function scriptReferences(markdown: string): ScriptReference[] {
  const references: ScriptReference[] = [];
  markdown.split('\n').forEach((text, index) => {
    for (const [, script] of text.matchAll(NPM_RUN)) {
      if (script !== undefined) references.push({ line: index + 1, script });
    }
  });
  return references;
}
