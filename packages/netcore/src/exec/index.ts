export {
  runCommand,
  CommandError,
  CommandNotFoundError,
  isCommandError,
  isCommandNotFoundError,
} from './run.js';
export type { RunOptions, RunResult } from './run.js';
