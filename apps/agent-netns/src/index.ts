export {
  hbrDesiredState,
  bridgeName,
  vxlanName,
  vrfTable,
  VRF_TABLE_BASE,
  HBR_TABLE,
  VXLAN_PORT,
} from './hbr-state.js';
export type { HbrStateOptions } from './hbr-state.js';
export { loadNetnsConfig } from './setup.js';
export type { NetnsConfig } from './setup.js';
