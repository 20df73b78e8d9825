import { readFile } from 'node:fs/promises';
import { matchesLabelSelector } from '@fabrik/kube';
import {
  formatIntentDocuments,
  watchFile,
  writeIntentFile,
  type FileWatch,
  type IntentObject,
  type IntentSnapshot,
  type Logger,
  type StatusSink,
} from '@fabrik/agent-runtime';
import { parseNodeNetworkStatusSection, type NodeNetworkStatusSection } from '@fabrik/api';

// The relay for the HBR container, which holds no API credentials (seed 004): this node's VRF and
// Layer2Network objects go into the file agent-netns reads, and agent-netns's status file comes
// back as the `netns` section of NodeNetworkStatus. When agent-host stops, both files stay: the
// HBR keeps routing on the last objects it was given.

const RELAYED_KINDS = new Set(['VRF', 'Layer2Network']);

/**
 * The objects agent-netns gets (pure): VRFs and Layer2Networks whose nodeSelector matches this
 * node, in their CRD shape without server bookkeeping, plus a Node document with the node's labels
 * (so agent-netns applies the same selectors). An object whose selector cannot be evaluated (it is
 * invalid) is passed on: agent-netns refuses it and reports it in its status, naming the field.
 */
export function relayedObjects(snapshot: IntentSnapshot): IntentObject[] {
  const labels = snapshot.node?.labels ?? {};
  const out: IntentObject[] = [];
  const sorted = [...snapshot.objects]
    .filter((o) => RELAYED_KINDS.has(o.kind))
    .sort((a, b) => (a.kind + a.metadata.name < b.kind + b.metadata.name ? -1 : 1));
  for (const o of sorted) {
    const selector = (o.spec as { nodeSelector?: unknown } | undefined)?.nodeSelector;
    let scheduled = true;
    try {
      scheduled =
        snapshot.node === undefined ||
        matchesLabelSelector(selector as Parameters<typeof matchesLabelSelector>[0], labels);
    } catch {
      scheduled = true;
    }
    if (!scheduled) continue;
    const { name, labels: objectLabels, annotations, generation } = o.metadata;
    const created = (o.metadata as { creationTimestamp?: unknown }).creationTimestamp;
    out.push({
      apiVersion: o.apiVersion,
      kind: o.kind,
      metadata: {
        name,
        ...(objectLabels ? { labels: objectLabels } : {}),
        ...(annotations ? { annotations } : {}),
        ...(generation !== undefined ? { generation } : {}),
        // Conflicts between objects are decided by age: keep it.
        ...(typeof created === 'string' ? { creationTimestamp: created } : {}),
      } as IntentObject['metadata'],
      ...(o.spec !== undefined ? { spec: o.spec } : {}),
    });
  }
  if (snapshot.node)
    out.push({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: snapshot.node.name, labels: snapshot.node.labels },
    });
  return out;
}

export interface RelayOptions {
  readonly intentFile: string;
  readonly statusFile: string;
  /** Where agent-netns's status goes (the `netns` section); undefined without an API server. */
  readonly netnsStatus: StatusSink<NodeNetworkStatusSection> | undefined;
  readonly logger: Logger;
  /** Backoff of failed status publications. */
  readonly retry?: { readonly initialMs: number; readonly maxMs: number };
}

export interface Relay {
  /** Writes this node's objects atomically when they changed; resolves whether the file changed. */
  writeIntent(snapshot: IntentSnapshot): Promise<boolean>;
  /** Starts publishing agent-netns's status file. */
  start(): Promise<void>;
  stop(): void;
}

export function createRelay(options: RelayOptions): Relay {
  const { logger } = options;
  const retry = options.retry ?? { initialMs: 500, maxMs: 30_000 };
  let written: string | undefined;
  let watch: FileWatch | undefined;
  let pending: NodeNetworkStatusSection | undefined;
  let publishing = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let delay = retry.initialMs;
  let stopped = false;

  // The latest status wins; a failed write is retried with backoff (the API server may be down).
  const publish = async (): Promise<void> => {
    if (publishing || stopped || !options.netnsStatus) return;
    publishing = true;
    try {
      while (pending && !stopped) {
        const section = pending;
        try {
          await options.netnsStatus.write(section);
          if (pending === section) pending = undefined;
          delay = retry.initialMs;
        } catch (e) {
          logger.warn({ err: e, retryInMs: delay }, 'relay: publishing the netns status failed');
          retryTimer = setTimeout(() => void publish(), delay);
          delay = Math.min(delay * 2, retry.maxMs);
          return;
        }
      }
    } finally {
      publishing = false;
    }
  };

  const onStatus = (content: string | undefined) => {
    if (content === undefined) return; // agent-netns has not written yet: nothing to publish
    let section: NodeNetworkStatusSection;
    try {
      const parsed = parseNodeNetworkStatusSection(JSON.parse(content));
      if (!parsed.ok) throw parsed.error;
      section = parsed.value;
    } catch (e) {
      logger.warn(
        { err: e, file: options.statusFile },
        'relay: agent-netns status file is not a status section',
      );
      return;
    }
    pending = section;
    void publish();
  };

  return {
    async writeIntent(snapshot) {
      const objects = relayedObjects(snapshot);
      const text = formatIntentDocuments(objects);
      written ??= await readFile(options.intentFile, 'utf8').catch(() => undefined);
      if (text === written) return false;
      await writeIntentFile(options.intentFile, objects);
      written = text;
      logger.info({ file: options.intentFile, objects: objects.length }, 'relay: intent file written');
      return true;
    },
    async start() {
      if (!options.netnsStatus) {
        logger.info(
          { file: options.statusFile },
          'relay: no API server; agent-netns status is not published',
        );
        return;
      }
      watch = await watchFile(options.statusFile, onStatus, {
        onError: (e) => logger.warn({ err: e }, 'relay: reading the status file failed'),
      });
    },
    stop() {
      stopped = true;
      watch?.stop();
      if (retryTimer) clearTimeout(retryTimer);
    },
  };
}
