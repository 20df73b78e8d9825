import { isStale, withNetnsLiveness } from './netns-liveness.js';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { matchesLabelSelector } from '@fabrik/kube';
import {
  formatIntentDocuments,
  intentDocumentsOf,
  watchFile,
  writeFileAtomic,
  writeIntentFile,
  type FileWatch,
  type IntentObject,
  type IntentSnapshot,
  type Logger,
  type StatusSink,
} from '@fabrik/agent-runtime';
import {
  DEFAULT_BGP_PASSWORD_KEY,
  parseNodeNetworkStatusSection,
  type NodeNetworkStatusSection,
  type ObjectError,
} from '@fabrik/api';

// The relay for the HBR container, which holds no API credentials (seed 004): this node's VRF,
// Layer2Network and BGPPeering objects go into the file agent-netns reads, and agent-netns's
// status file comes back as the `netns` section of NodeNetworkStatus. A BGPPeering's password
// (passwordSecretRef) is resolved here and handed over as a file beside the intent file (mode
// 0600), which the relayed BGPPeering names as its passwordFile: the relay directory is mounted at
// the same path in both containers. When agent-host stops, the files stay: the HBR keeps routing
// on the last objects it was given.

const RELAYED_KINDS = new Set(['VRF', 'Layer2Network', 'BGPPeering']);

/**
 * Annotation of a relayed BGPPeering whose password is relayed: its Secret's resourceVersion. It
 * changes when the password does, which changes the intent file and so makes agent-netns
 * reconcile and read the new password file.
 */
export const PASSWORD_REVISION = 'network.fabrik.dev/relayed-password-revision';

/** Where the relay writes BGPPeerings' passwords: `bgp-passwords/` beside the intent file. */
export const relayPasswordDir = (intentFile: string): string => join(dirname(intentFile), 'bgp-passwords');

/** What the relay hands agent-netns: its objects, the password files they name, what could not be relayed. */
export interface RelayedIntent {
  readonly objects: IntentObject[];
  /** Password file path -> password. Never logged. */
  readonly passwords: ReadonlyMap<string, string>;
  /** Objects not relayed, each with the field at fault: refused for that object only (agent-host's status). */
  readonly objectErrors: ObjectError[];
}

/**
 * What agent-netns gets (pure): VRFs, Layer2Networks and BGPPeerings whose nodeSelector matches
 * this node, in their CRD shape without server bookkeeping, plus a Node document with the node's
 * labels (so agent-netns applies the same selectors). An object whose selector cannot be evaluated
 * (it is invalid) is passed on: agent-netns refuses it and reports it in its status, naming the
 * field. A BGPPeering's passwordSecretRef becomes a passwordFile in `passwordDir`; one whose Secret
 * cannot be read is passed on as it is (agent-netns skips it, naming spec.passwordSecretRef); one
 * naming a passwordFile is not relayed (a cluster object may not name files of the node).
 */
export function relayedIntent(snapshot: IntentSnapshot, passwordDir: string): RelayedIntent {
  const labels = snapshot.node?.labels ?? {};
  const objects: IntentObject[] = [];
  const passwords = new Map<string, string>();
  const objectErrors: ObjectError[] = [];
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
    let spec = o.spec;
    let revision: string | undefined;
    if (o.kind === 'BGPPeering') {
      const peering = withPasswordFile(o, snapshot, passwordDir);
      if ('problem' in peering) {
        objectErrors.push({ kind: 'BGPPeering', name: o.metadata.name, ...peering.problem });
        continue;
      }
      spec = peering.spec;
      if (peering.password !== undefined) {
        passwords.set(peering.path, peering.password);
        revision = peering.revision;
      }
    }
    const { name, labels: objectLabels, generation } = o.metadata;
    const created = (o.metadata as { creationTimestamp?: unknown }).creationTimestamp;
    const annotations =
      revision === undefined
        ? o.metadata.annotations
        : { ...o.metadata.annotations, [PASSWORD_REVISION]: revision };
    objects.push({
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
      ...(spec !== undefined ? { spec } : {}),
    });
  }
  if (snapshot.node)
    objects.push({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: snapshot.node.name, labels: snapshot.node.labels },
    });
  return { objects, passwords, objectErrors };
}

/** A BGPPeering's spec as relayed: its Secret's password moved into a file of `passwordDir`. */
function withPasswordFile(
  peering: IntentObject,
  snapshot: IntentSnapshot,
  passwordDir: string,
):
  | { spec: unknown; path: string; password?: string; revision?: string }
  | { problem: { field: string; message: string } } {
  const spec = (peering.spec ?? {}) as Record<string, unknown>;
  if (spec['passwordFile'] !== undefined)
    return {
      problem: {
        field: 'spec.passwordFile',
        message: 'a BGPPeering from the cluster may not name files of the node (not relayed)',
      },
    };
  const ref = spec['passwordSecretRef'] as { name?: unknown; key?: unknown } | undefined;
  if (ref === undefined || typeof ref.name !== 'string') return { spec: peering.spec, path: '' };
  const key = typeof ref.key === 'string' ? ref.key : DEFAULT_BGP_PASSWORD_KEY;
  const password = snapshot.secrets?.get(ref.name)?.[key];
  if (password === undefined) return { spec: peering.spec, path: '' };
  const path = join(passwordDir, peering.metadata.name);
  const { passwordSecretRef: _resolved, ...rest } = spec;
  const revision = snapshot.secrets?.revision(ref.name) ?? '';
  return { spec: { ...rest, passwordFile: path }, path, password, revision };
}

export interface RelayOptions {
  readonly intentFile: string;
  readonly statusFile: string;
  /** Where agent-netns's status goes (the `netns` section); undefined without an API server. */
  readonly netnsStatus: StatusSink<NodeNetworkStatusSection> | undefined;
  readonly logger: Logger;
  /** Backoff of failed status publications. */
  readonly retry?: { readonly initialMs: number; readonly maxMs: number };
  /**
   * A status file older than this means agent-netns stopped: its section is published with
   * FabrikNetnsReady False (netns-liveness.ts). Default: 60 s.
   */
  readonly netnsMaxAgeMs?: number;
}

export interface Relay {
  /**
   * Writes this node's objects (and the password files they name) atomically when they changed;
   * resolves whether the intent file changed and what could not be relayed.
   */
  writeIntent(snapshot: IntentSnapshot): Promise<{ changed: boolean; objectErrors: ObjectError[] }>;
  /** Starts publishing agent-netns's status file. */
  start(): Promise<void>;
  stop(): void;
}

export function createRelay(options: RelayOptions): Relay {
  const { logger } = options;
  const retry = options.retry ?? { initialMs: 500, maxMs: 30_000 };
  const passwordDir = relayPasswordDir(options.intentFile);
  let writtenPasswords: ReadonlyMap<string, string> | undefined;
  let written: string | undefined;
  let watch: FileWatch | undefined;
  let pending: NodeNetworkStatusSection | undefined;
  let publishing = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let delay = retry.initialMs;
  let stopped = false;
  const maxAgeMs = options.netnsMaxAgeMs ?? 60_000;
  /** agent-netns's last status as it wrote it, and whether it was published as stale. */
  let lastSection: NodeNetworkStatusSection | undefined;
  let publishedStale = false;
  let livenessTimer: NodeJS.Timeout | undefined;
  const enqueue = (section: NodeNetworkStatusSection) => {
    const now = new Date();
    publishedStale = isStale(section, now, maxAgeMs);
    pending = withNetnsLiveness(section, now, maxAgeMs);
    void publish();
  };
  // Staleness comes with time, not with a change of the file: checked a few times per max age.
  const checkLiveness = () => {
    if (lastSection && isStale(lastSection, new Date(), maxAgeMs) !== publishedStale) {
      if (!publishedStale) logger.warn({ file: options.statusFile }, 'relay: agent-netns stopped reporting');
      enqueue(lastSection);
    }
  };

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
    lastSection = section;
    enqueue(section);
  };

  return {
    async writeIntent(snapshot) {
      const { objects, passwords, objectErrors } = relayedIntent(snapshot, passwordDir);
      // Passwords first: the intent that names a file is written once the file is there.
      const passwordsChanged = await writePasswords(passwordDir, passwords, writtenPasswords);
      writtenPasswords = passwords;
      const text = formatIntentDocuments(objects);
      written ??= intentDocumentsOf(await readFile(options.intentFile, 'utf8').catch(() => undefined));
      if (text === written && !passwordsChanged) return { changed: false, objectErrors };
      await writeIntentFile(options.intentFile, objects);
      written = text;
      logger.info(
        { file: options.intentFile, objects: objects.length, passwordFiles: passwords.size },
        'relay: intent file written',
      );
      return { changed: true, objectErrors };
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
      livenessTimer = setInterval(checkLiveness, Math.min(5_000, Math.max(250, maxAgeMs / 4)));
      livenessTimer.unref();
    },
    stop() {
      stopped = true;
      watch?.stop();
      if (retryTimer) clearTimeout(retryTimer);
      if (livenessTimer) clearInterval(livenessTimer);
    },
  };
}

/**
 * Makes `dir` hold exactly the password files of `passwords` (mode 0600, written atomically);
 * `previous` is what the last call wrote (undefined at start: every file is written). Resolves
 * whether any file was written or removed.
 */
async function writePasswords(
  dir: string,
  passwords: ReadonlyMap<string, string>,
  previous: ReadonlyMap<string, string> | undefined,
): Promise<boolean> {
  let changed = false;
  if (passwords.size > 0) await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const [path, password] of passwords) {
    if (previous?.get(path) === password) continue;
    await writeFileAtomic(path, password, { mode: 0o600 });
    changed = true;
  }
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (passwords.has(join(dir, name))) continue;
    await rm(join(dir, name), { force: true });
    changed = true;
  }
  return changed;
}
