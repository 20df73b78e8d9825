import { isConfigError, isInvalidInputError } from './errors.js';

// The command line every fabrik agent shares: `NAME run|plan|render|cleanup --config FILE`,
// `NAME --version`, `NAME --help`, and one meaning for each exit code.

/** Exit codes: `plan` exits 0 in sync, 1 when it would change something, 2 on invalid input. */
export const EXIT = {
  /** Success; `plan`: in sync. */
  ok: 0,
  /** `plan`: the node would change. */
  changes: 1,
  /** Any failure that is not the input's fault (a backend down, a kernel error). */
  failure: 1,
  /** Invalid configuration, intent or usage. */
  invalid: 2,
} as const;

export type AgentCommandName = 'run' | 'plan' | 'render' | 'cleanup';

export interface AgentCommandContext {
  /** The `--config` file. */
  readonly configPath: string;
  /** Writes to standard output (what `plan` and `render` print). */
  readonly out: (text: string) => void;
  /** Writes to standard error. */
  readonly err: (text: string) => void;
}

export interface AgentCommand {
  /** One line for `--help`. */
  readonly summary: string;
  /** Resolves with the exit code. A ConfigError or InvalidInputError thrown here exits 2; anything else 1. */
  run(context: AgentCommandContext): Promise<number>;
}

export interface AgentCliSpec {
  /** The binary's name: `fabrik-agent-netns`. */
  readonly name: string;
  readonly version: string;
  /** One paragraph for `--help`. */
  readonly description: string;
  /** Used when `--config` is not given; without it, `--config` is required. */
  readonly defaultConfigPath?: string;
  readonly commands: Readonly<Partial<Record<AgentCommandName, AgentCommand>>>;
}

export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

const processIo: CliIo = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

/** Runs the command line `argv` (without node and the script); resolves with the exit code. */
export async function runAgentCli(
  spec: AgentCliSpec,
  argv: readonly string[],
  io: CliIo = processIo,
): Promise<number> {
  const usage = () => helpText(spec);
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-v') {
    io.out(`${spec.name} ${spec.version}\n`);
    return EXIT.ok;
  }
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    io[first === undefined ? 'err' : 'out'](usage());
    return first === undefined ? EXIT.invalid : EXIT.ok;
  }
  const command = spec.commands[first as AgentCommandName];
  if (!Object.hasOwn(spec.commands, first) || command === undefined) {
    io.err(`${spec.name}: unknown command ${JSON.stringify(first)}\n\n${usage()}`);
    return EXIT.invalid;
  }
  let configPath = spec.defaultConfigPath;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--help' || a === '-h') {
      io.out(`${spec.name} ${first} --config FILE: ${command.summary}\n`);
      return EXIT.ok;
    }
    if (a === '--config' || a === '-c') {
      const value = rest[++i];
      if (value === undefined) {
        io.err(`${spec.name}: ${a} needs a file\n`);
        return EXIT.invalid;
      }
      configPath = value;
    } else if (a.startsWith('--config=')) configPath = a.slice('--config='.length);
    else {
      // A mistyped option (`--confg x`) must not fall back to the default configuration.
      io.err(
        `${spec.name} ${first}: unknown ${a.startsWith('-') ? 'option' : 'argument'} ${JSON.stringify(a)} (${first} takes only --config FILE)\n`,
      );
      return EXIT.invalid;
    }
  }
  if (configPath === undefined) {
    io.err(`${spec.name} ${first}: --config FILE is required\n`);
    return EXIT.invalid;
  }
  try {
    return await command.run({ configPath, out: io.out, err: io.err });
  } catch (e) {
    if (isConfigError(e) || isInvalidInputError(e)) {
      io.err(`${spec.name} ${first}: ${e.message}\n`);
      return EXIT.invalid;
    }
    io.err(`${spec.name} ${first}: ${e instanceof Error ? e.message : String(e)}\n`);
    return EXIT.failure;
  }
}

function helpText(spec: AgentCliSpec): string {
  const commands = Object.entries(spec.commands)
    .map(([name, c]) => `  ${name.padEnd(8)} ${c!.summary}`)
    .join('\n');
  return [
    `${spec.name} ${spec.version}: ${spec.description}`,
    '',
    `usage: ${spec.name} COMMAND --config FILE${spec.defaultConfigPath ? ` (default ${spec.defaultConfigPath})` : ''}`,
    `       ${spec.name} --version`,
    '',
    'commands:',
    commands,
    '',
    'exit codes: 0 success (plan: in sync), 1 failure (plan: would change), 2 invalid input',
    '',
  ].join('\n');
}
