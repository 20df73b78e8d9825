import { readFile } from 'node:fs/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>;
import { parse as parseYaml } from 'yaml';
import { checkFrrConfig } from './runtime/check.js';
import { runningConfigFile } from './config-text.js';
import { diffLines } from './diff.js';
import {
  FRR_TEMPLATE_SETS,
  FrrIntentError,
  frrIntentJsonSchema,
  isFrrIntentError,
  redactConfigText,
  type FrrTemplateSet,
} from './intent.js';
import { writeFileAtomic } from './runtime/pathspace-files.js';
import { renderFrrConfig } from './render.js';

/** Where the CLI reads and writes; process streams in production, buffers in tests. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** Exit codes of fabrik-frr. */
export const EXIT = { ok: 0, failure: 1, invalidIntent: 2 } as const;

const USAGE = `fabrik-frr: render, check and diff FRR configuration from a routing intent

Usage:
  fabrik-frr render --intent FILE [--mode netns|vrf-ibgp] [--templates DIR] [--hostname NAME] [--out FILE]
  fabrik-frr check FILE
  fabrik-frr diff --running FILE --intent FILE [--mode ...] [--templates DIR] [--hostname NAME]
  fabrik-frr schema
  fabrik-frr COMMAND --help

Exit codes: 0 success, 2 invalid intent, 1 any other failure.
`;

const HELP: Record<string, string> = {
  render: `fabrik-frr render --intent FILE [options]

Validates the intent (YAML or JSON) and prints the FRR configuration.

  --intent FILE      the routing intent (required)
  --mode SET         template set: netns (default: the intent's mode) or vrf-ibgp
  --templates DIR    directory of <partial>.hbs files that replace built-in partials
  --hostname NAME    print "hostname NAME" (must match the running hostname for frr-reload.py)
  --out FILE         write to FILE (atomically) instead of standard output
`,
  check: `fabrik-frr check FILE

Checks the syntax of an FRR configuration file offline with \`vtysh -C -f FILE\` (dry run).
Prints FRR's message and exits 1 when FRR rejects it.
`,
  diff: `fabrik-frr diff --running FILE --intent FILE [options]

Prints a unified diff from a saved \`show running-config\` to the configuration rendered from the
intent (empty when they are equal; exit code 0 either way).

  --running FILE     output of \`vtysh -c "show running-config"\` (required)
  --intent FILE      the routing intent (required)
  --mode, --templates, --hostname   as for render
`,
  schema: `fabrik-frr schema

Prints the JSON Schema (draft 2020-12) of the routing intent.
`,
};

class UsageError extends Error {}

/**
 * Runs the fabrik-frr command line; resolves with the exit code. Only `render` prints the
 * configuration as it is (it is the file); everything else on standard output and everything on
 * standard error goes through `redactConfigText`, so no BGP password reaches a terminal or a log.
 */
export async function runFrrCli(argv: readonly string[], rawIo: CliIo): Promise<number> {
  const io: CliIo = {
    stdout: (text) => rawIo.stdout(redactConfigText(text)),
    stderr: (text) => rawIo.stderr(redactConfigText(text)),
  };
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    (command === undefined ? io.stderr : io.stdout)(USAGE);
    return command === undefined ? EXIT.failure : EXIT.ok;
  }
  const help = HELP[command];
  if (help === undefined) {
    io.stderr(`fabrik-frr: unknown command "${command}"\n\n${USAGE}`);
    return EXIT.failure;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(help);
    return EXIT.ok;
  }
  try {
    switch (command) {
      case 'render':
        return await render(rest, { ...io, stdout: rawIo.stdout });
      case 'check':
        return await check(rest, io);
      case 'diff':
        return await diff(rest, io);
      default:
        parse(rest, {}, 0);
        io.stdout(`${JSON.stringify(frrIntentJsonSchema(), null, 2)}\n`);
        return EXIT.ok;
    }
  } catch (e) {
    if (isFrrIntentError(e)) {
      io.stderr(`fabrik-frr: ${e.message}\n`);
      return EXIT.invalidIntent;
    }
    if (e instanceof UsageError) {
      io.stderr(`fabrik-frr ${command}: ${e.message}\n\n${help}`);
      return EXIT.failure;
    }
    io.stderr(`fabrik-frr: ${e instanceof Error ? e.message : String(e)}\n`);
    return EXIT.failure;
  }
}

const renderOptions = {
  intent: { type: 'string' },
  mode: { type: 'string' },
  templates: { type: 'string' },
  hostname: { type: 'string' },
} satisfies ParseArgsOptionsConfig;

type ParsedArgs = {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
};

function parse(args: readonly string[], options: ParseArgsOptionsConfig, positionals: number): ParsedArgs {
  let parsed: ParsedArgs;
  try {
    parsed = parseArgs({ args: [...args], options, allowPositionals: positionals > 0, strict: true });
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  if (parsed.positionals.length !== positionals)
    throw new UsageError(`expected ${positionals} file argument(s), got ${parsed.positionals.length}`);
  return parsed;
}

function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

async function renderFromArgs(values: Record<string, unknown>): Promise<string> {
  const mode = values.mode as string | undefined;
  if (mode !== undefined && !(FRR_TEMPLATE_SETS as readonly string[]).includes(mode)) {
    throw new UsageError(`--mode must be one of ${FRR_TEMPLATE_SETS.join(', ')}`);
  }
  const intent = await readIntent(required(values, 'intent'));
  return renderFrrConfig(intent, {
    mode: mode as FrrTemplateSet | undefined,
    templatesDir: values.templates as string | undefined,
    hostname: values.hostname as string | undefined,
  });
}

/** YAML or JSON (JSON is YAML); a syntax error is an invalid intent (exit 2). */
async function readIntent(file: string): Promise<unknown> {
  const text = await readFile(file, 'utf8');
  try {
    return parseYaml(text);
  } catch (e) {
    throw new FrrIntentError([
      {
        path: '(file)',
        message: `${file} is neither YAML nor JSON: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`,
      },
    ]);
  }
}

async function render(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parse(args, { ...renderOptions, out: { type: 'string' } }, 0);
  const text = await renderFromArgs(values);
  if (typeof values.out === 'string') await writeFileAtomic(values.out, text);
  else io.stdout(text);
  return EXIT.ok;
}

async function check(args: readonly string[], io: CliIo): Promise<number> {
  const { positionals } = parse(args, {}, 1);
  const result = await checkFrrConfig(await readFile(positionals[0] ?? '', 'utf8'));
  if (result.ok) {
    io.stdout(`${positionals[0]}: ok\n`);
    return EXIT.ok;
  }
  io.stderr(`${positionals[0]}: FRR rejected the configuration:\n${result.message}\n`);
  return EXIT.failure;
}

async function diff(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parse(args, { ...renderOptions, running: { type: 'string' } }, 0);
  const runningFile = required(values, 'running');
  const rendered = await renderFromArgs(values);
  const running = normalizeRunningConfig(await readFile(runningFile, 'utf8'));
  io.stdout(
    diffLines(running, rendered, {
      fromLabel: runningFile,
      toLabel: `rendered from ${required(values, 'intent')}`,
    }),
  );
  return EXIT.ok;
}

/**
 * `show running-config` as vtysh prints it, reduced to what a rendered file contains: no
 * "Building configuration..." preamble, version line, `end`, or lines FRR adds by itself.
 */
export function normalizeRunningConfig(text: string): string {
  const kept = runningConfigFile(text)
    .split('\n')
    .map((l) => l.trimEnd())
    .filter(
      (l) =>
        l !== '' && l !== 'end' && !l.startsWith('frr version ') && l !== 'service integrated-vtysh-config',
    );
  while (kept[0] === '!') kept.shift();
  return `${kept.join('\n')}\n`;
}
