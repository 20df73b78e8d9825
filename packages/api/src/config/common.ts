import { z } from 'zod';
import { LabelKey, LabelValue, NamespaceName, ObjectName } from '../kube/meta.js';

// Fields both agents' config files share (the daemon skeleton in @fabrik/agent-runtime reads them).

/** An absolute file or directory path. */
export const AbsolutePath = z
  .string()
  .max(4096)
  .regex(/^\/[^\0]*$/, 'must be an absolute path');

const PORT = '([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])';

/** `host:port`, `[v6]:port` or `:port` (every address) to listen on; port 0 picks a free port. */
export const ListenAddress = z
  .string()
  .regex(
    new RegExp(`^(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9.-]*):${PORT}$`),
    'must be host:port, [v6]:port or :port (port 0-65535)',
  );

const EVERY_ADDRESS = new Set(['', '0.0.0.0', '[::]']);

/**
 * Whether two listen addresses would take the same socket: the same port (not 0) on the same host,
 * or on any host when one of them listens on every address (`:9731` takes `127.0.0.1:9731` too).
 */
export function listenAddressesClash(a: string, b: string): boolean {
  const split = (address: string) => {
    const colon = address.lastIndexOf(':');
    return { host: address.slice(0, colon), port: address.slice(colon + 1) };
  };
  const [x, y] = [split(a), split(b)];
  if (x.port !== y.port || Number(x.port) === 0) return false;
  return x.host === y.host || EVERY_ADDRESS.has(x.host) || EVERY_ADDRESS.has(y.host);
}

/** Where the agent reads its VRF and Layer2Network objects. */
export const IntentSource = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('kubernetes'),
      /** Absent: the in-cluster service account, else $KUBECONFIG, else ~/.kube/config. */
      kubeconfig: AbsolutePath.optional(),
      /**
       * The namespace of the Secrets BGPPeerings name (`passwordSecretRef`): the agent lists and
       * watches the Secrets of this namespace only. Absent: env POD_NAMESPACE (the agent's own
       * namespace), else `fabrik-system` (DEFAULT_SECRET_NAMESPACE).
       */
      secretNamespace: NamespaceName.optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal('file'),
      /** A multi-document YAML of VRF and Layer2Network objects in the CRD's shape; re-read on change. */
      path: AbsolutePath,
      /**
       * `relay`: the file is agent-host's relay (a header with format version, sequence and
       * digest): a content without a valid header (empty, cut short, older) is refused and the last
       * good intent kept. `plain`: a file written by hand (a header, when present, is still checked).
       */
      format: z.enum(['plain', 'relay']).default('plain'),
    })
    .strict(),
]);
export type IntentSource = z.infer<typeof IntentSource>;

/** Where the agents' Secrets live when neither the config nor env POD_NAMESPACE says (agent-runtime's withSecretNamespace). */
export const DEFAULT_SECRET_NAMESPACE = 'fabrik-system';

/** A taint on the agent's Node that the agent removes once its node is ready. */
export const StartupTaint = z
  .object({
    key: LabelKey,
    value: LabelValue.optional(),
    effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']).default('NoSchedule'),
  })
  .strict();
export type StartupTaint = z.infer<typeof StartupTaint>;

/** Fields of both agents' configs, with the defaults that do not depend on the agent. */
export const agentCommonFields = {
  /** The Node this agent serves; absent in the file: the loader takes env NODE_NAME. */
  nodeName: ObjectName.optional(),
  /** Full reconcile every so many seconds, besides the one triggered by every change. */
  resyncSeconds: z.number().int().min(10).max(86_400).default(300),
  startupTaint: StartupTaint.optional(),
};
