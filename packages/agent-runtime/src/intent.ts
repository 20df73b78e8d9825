// What an agent's intent sources hand to its reconciler: Kubernetes objects in their own shape
// (the CRD's), not yet validated: the agent validates each object on its own, so one bad object
// is reported while the others are applied.

/** An object as the API server (or the intent file) holds it. */
export interface IntentObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: IntentObjectMeta;
  readonly spec?: unknown;
  readonly status?: unknown;
}

export interface IntentObjectMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly generation?: number;
  readonly resourceVersion?: string;
  readonly uid?: string;
}

/** The Node the agent runs on, as far as its intent needs it (nodeSelectors match its labels). */
export interface NodeInfo {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** Something the source could not turn into an object (a YAML document without a name, ...). */
export interface SourceProblem {
  /** Where: `intent.yaml document 3`, `VRF red`. */
  readonly where: string;
  readonly message: string;
}

/**
 * The Secrets objects may name (BGPPeering's `passwordSecretRef`), as a source that reads them
 * holds them: the Kubernetes source with a `secretNamespace`.
 */
export interface SecretReader {
  /** Where the Secrets live, for messages: `namespace fabrik-system`. */
  readonly where: string;
  /** The Secret's data, decoded (key -> value); undefined when there is no such Secret. */
  get(name: string): Readonly<Record<string, string>> | undefined;
  /**
   * A value that changes whenever the Secret does (its resourceVersion): lets a consumer say "the
   * password changed" without handling the password. Undefined when there is no such Secret.
   */
  revision(name: string): string | undefined;
}

/** Everything a source knows right now. */
export interface IntentSnapshot {
  readonly objects: readonly IntentObject[];
  /** This Node, when the source knows it (the Kubernetes source always; a file may carry it). */
  readonly node?: NodeInfo;
  readonly problems: readonly SourceProblem[];
  /** The Secrets objects may name; absent when the source reads none (a file). */
  readonly secrets?: SecretReader;
}

/**
 * Where an agent's intent comes from. Level-triggered: `onChange` says only that something may
 * have changed (with a reason for the log line); the reconciler reads `snapshot()` afresh.
 */
export interface IntentSource {
  /** For logs and errors: `file /etc/fabrik/intent.yaml`, `kubernetes https://...`. */
  readonly description: string;
  /** Starts watching; resolves once watching has begun (not necessarily synced). */
  start(onChange: (reason: string) => void): Promise<void>;
  /** True once the source has answered at least once (a first read or list that succeeded). */
  hasSynced(): boolean;
  snapshot(): IntentSnapshot;
  /** Stops watching; safe to call twice. */
  stop(): Promise<void>;
}

/** `Layer2Network blue-100`: how logs and status name an object. */
export const objectRef = (o: Pick<IntentObject, 'kind' | 'metadata'>): string =>
  `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
