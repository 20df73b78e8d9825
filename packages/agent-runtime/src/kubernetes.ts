// @fabrik/agent-runtime/kubernetes: the runtime's Kubernetes halves, in an entry of their own
// because they load @kubernetes/client-node (about two seconds at start); an agent with a file
// source never pays for it.
export { createKubernetesSource } from './kube-source.js';
export type { KubernetesSourceOptions, WatchedKind } from './kube-source.js';
export { createNodeStatusSink } from './node-status.js';
export type { NodeStatusSinkOptions, StatusSection } from './node-status.js';
