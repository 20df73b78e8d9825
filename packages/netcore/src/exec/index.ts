export {
  runCommand,
  CommandError,
  CommandNotFoundError,
  isCommandError,
  isCommandNotFoundError,
} from './run.js';
export type { RunOptions, RunResult } from './run.js';
export { startCommand } from './start.js';
export type { StartOptions, StartedCommand, CommandExit } from './start.js';
export { lockFile, withFileLock, FileLockTimeoutError, isFileLockTimeoutError } from './lock.js';
export type { FileLock, LockFileOptions } from './lock.js';
export { streamLines } from './stream.js';
export type { LineStream, StreamExit } from './stream.js';
