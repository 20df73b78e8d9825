export { connectOvsdb, checkTransactResult } from './client.js';
export type {
  OvsdbClient,
  ConnectOptions,
  ReconnectOptions,
  RequestOptions,
  MonitorTables,
  ConnectionState,
} from './client.js';
export { CACHED_TABLES } from './cache.js';
export type { OvsdbCache, RowChange, CachedTable } from './cache.js';
export { parseEndpoint } from './connection.js';
export type { Endpoint, OvsdbLogger } from './connection.js';
