import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FabrikError, errorGuard } from '@fabrik/api';
import Handlebars from 'handlebars';
import { parseFrrIntent, type FrrIntentInput, type FrrTemplateSet } from './intent.js';
import { toFrrModel, type FrrModel } from './model/index.js';

/** The built-in templates: src/templates under tsx, dist/templates after the build copied them. */
export const BUILTIN_TEMPLATES_DIR = fileURLToPath(new URL('./templates/', import.meta.url));

/** The partial every template set starts rendering from. */
const MAIN_PARTIAL = 'config';

export interface RenderFrrOptions {
  /** Template set; default: the intent's `mode`. */
  readonly mode?: FrrTemplateSet;
  /** A directory of `<partial>.hbs` files that replace built-in partials of the same name. */
  readonly templatesDir?: string;
  /** Printed as `hostname NAME`; frr-reload.py needs it equal to the running hostname. */
  readonly hostname?: string;
}

/** A template could not be read, compiled or rendered (a user override, usually). */
export class FrrTemplateError extends FabrikError<'FRR_TEMPLATE_ERROR'> {
  override readonly name = 'FrrTemplateError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('FRR_TEMPLATE_ERROR', message, options);
  }
}

export const isFrrTemplateError = errorGuard(FrrTemplateError);

/**
 * Helpers available to every partial. They only format; decisions belong in the model.
 * - `{{join list ", "}}`: the items of a list joined by a separator.
 * - `{{#if (eq a b)}}`: strict equality.
 * - `{{#if (not a)}}`: negation.
 */
export const FRR_TEMPLATE_HELPERS = {
  join: (list: unknown, separator: unknown) =>
    Array.isArray(list) ? list.join(typeof separator === 'string' ? separator : ' ') : '',
  eq: (a: unknown, b: unknown) => a === b,
  not: (a: unknown) => !a,
} as const;

type Renderer = (model: FrrModel) => string;

// Compiled template sets, keyed by set + override directory + the override files' contents, so
// that a render after warm-up costs only the template execution.
const compiled = new Map<string, Renderer>();
const builtin = new Map<FrrTemplateSet, Map<string, string>>();

/** Validates the intent, builds the model and renders FRR configuration text. Never spawns anything. */
export function renderFrrConfig(intent: FrrIntentInput | unknown, options: RenderFrrOptions = {}): string {
  const parsed = parseFrrIntent(intent);
  const model = toFrrModel(parsed, { mode: options.mode, hostname: options.hostname });
  return renderFrrModel(model, options.templatesDir);
}

/** Renders an already built model with the template set `model.mode`. */
export function renderFrrModel(model: FrrModel, templatesDir?: string): string {
  const sources = new Map(builtinPartials(model.mode));
  let key: string = model.mode;
  if (templatesDir !== undefined) {
    for (const [name, text] of readPartials(templatesDir)) sources.set(name, text);
    key += `\0${templatesDir}\0${[...sources].map(([n, t]) => `${n}\0${t}`).join('\0')}`;
  }
  let render = compiled.get(key);
  if (!render) {
    render = compile(sources, model.mode);
    compiled.set(key, render);
  }
  try {
    return tidy(render(model));
  } catch (e) {
    throw new FrrTemplateError(
      `rendering template set ${model.mode} failed: ${e instanceof Error ? e.message : String(e)}`,
      { cause: e },
    );
  }
}

/** Names of the partials of a template set (the file names a templates dir may override). */
export function frrPartialNames(mode: FrrTemplateSet): string[] {
  return [...builtinPartials(mode).keys()].sort();
}

function builtinPartials(mode: FrrTemplateSet): Map<string, string> {
  let partials = builtin.get(mode);
  if (!partials) {
    // Shared partials first; the set's own files replace those of the same name.
    partials = new Map([
      ...readPartials(join(BUILTIN_TEMPLATES_DIR, 'partials')),
      ...readPartials(join(BUILTIN_TEMPLATES_DIR, mode)),
    ]);
    builtin.set(mode, partials);
  }
  return partials;
}

function readPartials(dir: string): Map<string, string> {
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith('.hbs'))
      .sort();
  } catch (e) {
    throw new FrrTemplateError(
      `cannot read templates directory ${dir}: ${e instanceof Error ? e.message : String(e)}`,
      { cause: e },
    );
  }
  return new Map(files.map((f) => [f.slice(0, -'.hbs'.length), readFileSync(join(dir, f), 'utf8')]));
}

function compile(sources: ReadonlyMap<string, string>, mode: FrrTemplateSet): Renderer {
  const hbs = Handlebars.create();
  hbs.registerHelper(FRR_TEMPLATE_HELPERS);
  // strict: a misspelt field in an override fails loudly instead of printing nothing.
  // data: false: no @index/@first/@root frames (a third of the template time for 1000 VRFs);
  // the model carries everything a template prints.
  const compileOptions = { noEscape: true, strict: true, data: false } as const;
  for (const [name, text] of sources) {
    try {
      // compile() is lazy: parse() now so that a syntax error names its partial at the first render.
      hbs.parse(text);
      hbs.registerPartial(name, hbs.compile(text, compileOptions));
    } catch (e) {
      throw new FrrTemplateError(`partial ${name}.hbs: ${e instanceof Error ? e.message : String(e)}`, {
        cause: e,
      });
    }
  }
  const main = sources.get(MAIN_PARTIAL);
  if (main === undefined) throw new FrrTemplateError(`template set ${mode} has no ${MAIN_PARTIAL}.hbs`);
  const template = hbs.compile(main, compileOptions);
  return (model) => template(model);
}

/**
 * One `!` between blocks, no blank lines or trailing blanks, a single newline at the end.
 * Regular expressions over the whole text: splitting 40,000 lines cost more than the templates.
 */
function tidy(text: string): string {
  const out = text
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{2,}/g, '\n')
    .replace(/^\n+/, '')
    .replace(/^!\n(?:!\n)+/gm, '!\n');
  return out.endsWith('\n') ? out : `${out}\n`;
}
