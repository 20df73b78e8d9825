import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';

export type { Logger } from 'pino';

/** What replaces a secret in logs. */
export const REDACTED = '<redacted>';

/**
 * Fields that hold secrets wherever they appear (up to four levels deep): BGP passwords, bearer
 * tokens, kubeconfig credentials. pino's redaction matches paths, not names, hence the depths.
 */
const SECRET_KEYS = ['password', 'token', 'bearerToken', 'authorization', 'client-key-data', 'clientKeyData'];
export const DEFAULT_REDACT_PATHS: readonly string[] = SECRET_KEYS.flatMap((k) => {
  const key = /^[A-Za-z_$][\w$]*$/.test(k) ? k : `["${k}"]`;
  const dot = key.startsWith('[') ? '' : '.';
  return [key, `*${dot}${key}`, `*.*${dot}${key}`, `*.*.*${dot}${key}`];
});

export interface LoggerOptions {
  /** The agent's name, in every line as `name`. */
  readonly name: string;
  /** Default: env LOG_LEVEL, else `info`. */
  readonly level?: LevelWithSilent;
  /** More paths to redact (pino path syntax), besides {@link DEFAULT_REDACT_PATHS}. */
  readonly redact?: readonly string[];
  /** Default: standard output (JSON lines). */
  readonly destination?: DestinationStream;
}

/** A pino JSON logger with secrets redacted. */
export function createLogger(options: LoggerOptions): Logger {
  const level = options.level ?? ((process.env.LOG_LEVEL as LevelWithSilent | undefined) || 'info');
  return pino(
    {
      name: options.name,
      level,
      redact: { paths: [...DEFAULT_REDACT_PATHS, ...(options.redact ?? [])], censor: REDACTED },
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}
