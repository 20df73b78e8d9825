export { loadKubeConfig, SERVICE_ACCOUNT_DIR } from './config.js';
export type { LoadKubeConfigOptions, KubeConfigSource } from './config.js';
export { startInformer } from './informer.js';
export type { Informer, InformerOptions, InformerStats, InvalidObject } from './informer.js';
export { customObjects } from './custom-objects.js';
export type {
  CustomObjects,
  CustomObjectsOptions,
  ListOptions,
  ListResult,
  PatchOptions,
  DeleteOptions,
} from './custom-objects.js';
export { createStatusWriter } from './status-writer.js';
export type { StatusWriter, StatusWriterOptions, StatusWrite, StatusWriteResult } from './status-writer.js';
export {
  startNodeInformer,
  nodeOwnerReference,
  patchNodeCondition,
  addNodeTaint,
  removeNodeTaint,
  withTaint,
  withoutTaint,
  validateTaint,
  NodeObject,
  NodeCondition,
  Taint,
  TAINT_EFFECTS,
  KUBELET_CONDITION_TYPES,
} from './node.js';
export type { NodeInformerOptions, NodeConditionInput, NodeConditionResult, TaintEffect } from './node.js';
export { createEventRecorder } from './events.js';
export type { EventRecorder, EventRecorderOptions } from './events.js';
export type { EventObjectReference, EventType, EventInput, CorrelatorOptions } from './event-correlator.js';
export { stderrLogger } from './logger.js';
export type { KubeLogger } from './logger.js';
export { PATCH_CONTENT_TYPE } from './rest.js';
export type { PatchType } from './rest.js';
// The pure parts (label selectors and their rules, conditions) are listed by name once, in
// labels.ts: the entry point @fabrik/kube/labels, which does not load @kubernetes/client-node.
export * from './labels.js';
export { backoffDelay, sleep, retry, DEFAULT_BACKOFF, CONFLICT_BACKOFF } from './backoff.js';
export type { BackoffPolicy, RetryOptions } from './backoff.js';
export { createMergePatch, jsonEqual } from './merge-patch.js';
export type { JsonValue } from './merge-patch.js';
export {
  NODES,
  EVENTS,
  ObjectMeta,
  objectKey,
  splitObjectKey,
  collectionPath,
  objectPath,
  apiVersionOf,
} from './resource.js';
export type { GroupVersionResource, Parser, KubeObject } from './resource.js';
export {
  KubeError,
  KubeApiError,
  NotFoundError,
  ConflictError,
  AlreadyExistsError,
  GoneError,
  UnauthorizedError,
  ForbiddenError,
  InvalidError,
  ServerError,
  RequestRejectedError,
  UnreachableError,
  ObjectSchemaError,
  KubeConfigError,
  InvalidArgumentError,
  isKubeError,
  isNotFoundError,
  isConflictError,
  isAlreadyExistsError,
  isGoneError,
  isUnauthorizedError,
  isForbiddenError,
  isInvalidError,
  isServerError,
  isRequestRejectedError,
  isUnreachableError,
  isObjectSchemaError,
  isKubeConfigError,
  isInvalidArgumentError,
  isTransientError,
} from './errors.js';
export type { ApiStatus, StatusCause } from './errors.js';
