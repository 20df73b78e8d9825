// agent-host as a library: the pure parts its tests and tools use. The binary is cli.ts.
export { OWNER, desiredHost, expandVlans, trunkVlanName } from './desired.js';
export type { BridgeMigration, HostDesired, HostDesiredInput, TrunkVlan } from './desired.js';
export {
  MIGRATION_STEPS,
  MigrationJournal,
  adoptFromNic,
  beginMigration,
  decideMigrations,
  directionOf,
  globalAddresses,
  isAutomaticRoute,
  planMove,
  routeSpecOf,
  routesThrough,
} from './migration.js';
export type { MigrationDecision, MigrationDecisions, MigrationStep } from './migration.js';
export { relayedIntent, relayPasswordDir, PASSWORD_REVISION } from './relay.js';
export type { RelayedIntent } from './relay.js';
export { HOST_CONDITION, hostSection } from './status.js';
export type { HostOutcome, HostSectionResult } from './status.js';
export { hostDriftReason, ovsChangeReason } from './triggers.js';
export { loadHostConfig } from './config.js';
export type { HostConfig } from './config.js';
