/**
 * The logger this package writes to: pino's signature (a context object, then the message), so a pino
 * logger (or a child of one) can be passed as is.
 */
export interface KubeLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

function errorText(value: unknown): unknown {
  return value instanceof Error ? `${value.name}: ${value.message}` : value;
}

function writeLine(level: string, obj: object, msg: string): void {
  const fields = Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, errorText(v)]));
  process.stderr.write(`${JSON.stringify({ level, time: Date.now(), ...fields, msg })}\n`);
}

/**
 * Used when the caller passes none: warnings and errors as JSON lines on stderr (a handler that
 * throws or an informer that cannot reach the server must not go unnoticed), nothing else.
 */
export const stderrLogger: KubeLogger = {
  debug: () => {},
  info: () => {},
  warn: (obj, msg) => writeLine('warn', obj, msg),
  error: (obj, msg) => writeLine('error', obj, msg),
};
