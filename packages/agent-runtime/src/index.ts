export { ConfigError, InvalidInputError, isConfigError, isInvalidInputError, fieldPath } from './errors.js';
export type { FieldIssue } from './errors.js';
export { loadConfig, parseConfigText, withSecretNamespace } from './config.js';
export type { LoadConfigOptions } from './config.js';
export { objectRef } from './intent.js';
export type {
  IntentObject,
  IntentObjectMeta,
  IntentSnapshot,
  IntentSource,
  NodeInfo,
  SecretReader,
  SourceProblem,
} from './intent.js';
export {
  createFileSource,
  parseIntentDocuments,
  formatIntentDocuments,
  intentDocumentsOf,
  writeIntentFile,
} from './file-source.js';
export { formatRelayFile, splitRelayFile, RELAY_FORMAT_VERSION } from './relay-format.js';
export type { RelayFile, RelayHeader } from './relay-format.js';
export type { FileSourceOptions, ParseIntentOptions } from './file-source.js';
export { createWorkQueue, backoffDelay, DEFAULT_BACKOFF } from './work-queue.js';
export type { WorkQueue, WorkQueueOptions, WorkResult } from './work-queue.js';
export { createStateStore } from './state-store.js';
export { createCreationJournal } from './creation-journal.js';
export type { NameJournal } from './creation-journal.js';
export type { StateStore, StateStoreOptions } from './state-store.js';
export { createStatusFile, readStatusFile } from './status-file.js';
export type { StatusSink, StatusFileOptions } from './status-file.js';
export { writeFileAtomic, removeStaleTempFiles } from './atomic-file.js';
export { createAgentMetrics, DURATION_BUCKETS } from './metrics.js';
export type { AgentMetrics, AgentMetricsOptions } from './metrics.js';
export { startEndpoints, parseListenAddress, runChecks } from './http.js';
export type { Endpoints, EndpointsOptions, HealthCheck, Readiness } from './http.js';
export { createLogger, DEFAULT_REDACT_PATHS, REDACTED } from './logger.js';
export type { Logger, LoggerOptions } from './logger.js';
export { startDaemon, runDaemon } from './daemon.js';
export type {
  Daemon,
  DaemonOptions,
  Enqueue,
  Recheck,
  ReconcileOutcome,
  ReconcileRequest,
  ReconcileResult,
  Trigger,
} from './daemon.js';
export { runAgentCli, EXIT } from './cli.js';
export type { AgentCliSpec, AgentCommand, AgentCommandContext, AgentCommandName, CliIo } from './cli.js';
export { createStreamTrigger } from './stream-trigger.js';
export type { EventStream, StreamTriggerOptions } from './stream-trigger.js';
export { watchFile } from './watch-file.js';
export type { FileWatch, WatchFileOptions } from './watch-file.js';
export { keptMessage, scheduleIntent, scheduledKey } from './scheduling.js';
export type { ScheduledIntent, ScheduledObject, ScheduleOptions } from './scheduling.js';
