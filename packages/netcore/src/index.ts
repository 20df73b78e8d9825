// The root entry re-exports the building blocks every consumer needs; netlink and OVSDB have
// entry points of their own (@fabrik/netcore/netlink, @fabrik/netcore/ovsdb).
export { FabrikError, isFabrikError, errorGuard } from './errors.js';
export {
  runCommand,
  CommandError,
  CommandNotFoundError,
  isCommandError,
  isCommandNotFoundError,
  startCommand,
  lockFile,
  withFileLock,
  FileLockTimeoutError,
  isFileLockTimeoutError,
  streamLines,
} from './exec/index.js';
export type {
  RunOptions,
  RunResult,
  StartOptions,
  StartedCommand,
  CommandExit,
  FileLock,
  LockFileOptions,
  LineStream,
  StreamExit,
} from './exec/index.js';
export {
  NETNS_RUN_DIR,
  InvalidNetnsNameError,
  validateNetnsName,
  netnsPath,
  netnsAdd,
  netnsDel,
  netnsList,
  runInNetns,
} from './netns/index.js';
// netlink
export {
  createNetlink,
  plan as planNetlink,
  LinkNotFoundError,
  ObjectExistsError,
  KernelRejectedError,
  KernelFeatureMissingError,
  InvalidDesiredStateError,
  OwnershipConflictError,
  DumpInterruptedError,
  isDumpInterruptedError,
  isLinkNotFoundError,
  isObjectExistsError,
  isKernelRejectedError,
  isKernelFeatureMissingError,
  isInvalidDesiredStateError,
  isOwnershipConflictError,
} from './netlink/index.js';
export type { Netlink, NetlinkOptions, LinkSpec, DesiredState, Plan, PlanOp } from './netlink/index.js';
