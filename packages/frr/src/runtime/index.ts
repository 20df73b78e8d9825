// @fabrik/frr/runtime: what runs FRR's programs (vtysh, bgpd -C, frr-reload.py, python3) against
// files and running daemons: check, reload, pending changes, status.
export { checkFrrConfig } from './check.js';
export { checkBgpdConfig, FRR_DAEMON_DIR } from './bgpd-check.js';
export type { FrrCheckResult, FrrCheckProblem } from './check.js';
export { reloadFrr, releaseL3Vnis, FRR_RELOAD_SCRIPT } from './reload.js';
export type { ReloadFrrOptions, FrrReloadResult } from './reload.js';
export {
  FrrReloadError,
  isFrrReloadError,
  FrrVniMappingError,
  isFrrVniMappingError,
  checkVniMapping,
} from './reload-errors.js';
export type { FrrReloadStage, FrrVniMismatch } from './reload-errors.js';
export { withFrrReloadLock } from './pathspace-files.js';
export { pendingFrrChanges } from './pending.js';
export {
  readFrrStatus,
  readVrfVnis,
  readRunningConfigAndVrfVnis,
  parseFrrStatus,
  parseShowVrfVni,
} from './status.js';
export type { FrrStatus, FrrBgpSession, FrrEvpnVni, FrrVrfVni } from './status.js';
export { showRunningConfig, vtyshCommands, splitEchoedOutput } from './vtysh.js';
export type { FrrTarget } from './vtysh.js';
export { parseReloadTest } from '../config-text.js';
