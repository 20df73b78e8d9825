import type { KubeConfig } from '@kubernetes/client-node';
import { z } from 'zod';
import { backoffDelay, CONFLICT_BACKOFF, sleep, type BackoffPolicy } from './backoff.js';
import { formatKubeTime } from './conditions.js';
import { customObjects } from './custom-objects.js';
import { isAlreadyExistsError, isConflictError, isNotFoundError } from './errors.js';
import { stderrLogger, type KubeLogger } from './logger.js';
import { createMergePatch, jsonEqual } from './merge-patch.js';
import { ObjectMeta, type GroupVersionResource, type KubeObject } from './resource.js';
import { isRecord } from './rest.js';

// Writes one section of an object's status (for example NodeNetworkStatus `status.netns`, which
// agent-netns owns, while agent-host owns `status.host`), only when it differs from what is there.
//
// The write is a JSON merge patch of the status subresource, `{status: {<section>: <diff>}}`, carrying
// the resourceVersion that was read:
//  - a merge patch merges objects key by key, so the request does not even name the other sections:
//    no writer can erase another's section, whatever the interleaving;
//  - the diff (with null for the keys that went away) is computed against the section as read, and the
//    resourceVersion precondition makes the server refuse it (409) if anything changed since; the
//    writer then re-reads, recomputes and retries with backoff. Two writers of the same section thus
//    end with exactly the last writer's section, never a mix of both.

export interface StatusWriterOptions {
  readonly kc: KubeConfig;
  readonly resource: GroupVersionResource;
  readonly namespace?: string;
  /**
   * Builds the object to create when it does not exist yet (without status: the server ignores it on
   * create). Without this option a missing object is a NotFoundError. See {@link nodeOwnerReference}
   * for objects that should go away with their Node.
   */
  readonly create?: (name: string) => KubeObject | Promise<KubeObject>;
  /**
   * A field of the section that is set to the time of each write and ignored when comparing (for
   * example `lastUpdate`): it then tells when the section last changed, without causing writes.
   */
  readonly stampField?: string;
  /** Attempts per write, conflicts included. Default 30. */
  readonly maxAttempts?: number;
  readonly backoff?: BackoffPolicy;
  readonly clock?: () => Date;
  readonly fieldManager?: string;
  readonly timeoutMs?: number;
  readonly log?: KubeLogger;
}

export interface StatusWrite {
  readonly name: string;
  /** The top-level key of `status` this writer owns; omitted: the whole status. */
  readonly section?: string;
  /**
   * The desired section: a value, or a function of the section as it is now (called again after every
   * conflict), for example to keep lastTransitionTime with `setCondition`.
   */
  readonly status: unknown | ((current: unknown) => unknown);
}

export interface StatusWriteResult {
  /** A patch was sent (false: the section was already as desired). */
  readonly written: boolean;
  /** The object did not exist and was created. */
  readonly created: boolean;
  /** Requests that lost a conflict before this one went through. */
  readonly conflicts: number;
  readonly resourceVersion: string | undefined;
}

export interface StatusWriter {
  write(request: StatusWrite): Promise<StatusWriteResult>;
}

const StatusObject = z.looseObject({ metadata: ObjectMeta, status: z.unknown().optional() });

export function createStatusWriter(options: StatusWriterOptions): StatusWriter {
  const objects = customObjects(options.kc, options.resource, StatusObject, {
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    ...(options.fieldManager !== undefined && { fieldManager: options.fieldManager }),
  });
  const log = options.log ?? stderrLogger;
  const clock = options.clock ?? (() => new Date());
  const maxAttempts = options.maxAttempts ?? 30;
  const withoutStamp = (value: unknown): unknown => {
    if (!options.stampField || !isRecord(value)) return value;
    const { [options.stampField]: _stamp, ...rest } = value;
    return rest;
  };

  return {
    async write(request) {
      let created = false;
      let conflicts = 0;
      const namespace = options.namespace;
      for (let attempt = 0; ; attempt++) {
        let object: z.infer<typeof StatusObject>;
        try {
          object = await objects.get(request.name, namespace);
        } catch (error) {
          if (!isNotFoundError(error) || !options.create || attempt + 1 >= maxAttempts) throw error;
          try {
            await objects.create(await options.create(request.name));
            created = true;
          } catch (createError) {
            if (!isAlreadyExistsError(createError)) throw createError;
          }
          continue;
        }
        const status = isRecord(object.status) ? object.status : undefined;
        const current = request.section === undefined ? status : status?.[request.section];
        const desired =
          typeof request.status === 'function'
            ? (request.status as (c: unknown) => unknown)(current)
            : request.status;
        if (jsonEqual(withoutStamp(current), withoutStamp(desired))) {
          return { written: false, created, conflicts, resourceVersion: object.metadata.resourceVersion };
        }
        const stamped =
          options.stampField && isRecord(desired)
            ? { ...desired, [options.stampField]: formatKubeTime(clock()) }
            : desired;
        const diff = createMergePatch(current, stamped) ?? {};
        const patch = {
          metadata: { resourceVersion: object.metadata.resourceVersion },
          status: request.section === undefined ? diff : { [request.section]: diff },
        };
        try {
          const written = await objects.patchStatus(request.name, patch, {
            type: 'merge',
            ...(namespace !== undefined && { namespace }),
          });
          return { written: true, created, conflicts, resourceVersion: written.metadata.resourceVersion };
        } catch (error) {
          // Conflict: someone wrote in between. NotFound: deleted in between (re-created next round).
          if (!(isConflictError(error) || isNotFoundError(error)) || attempt + 1 >= maxAttempts) throw error;
          conflicts++;
          const delayMs = backoffDelay(attempt, options.backoff ?? CONFLICT_BACKOFF);
          log.debug(
            { name: request.name, section: request.section, err: error, delayMs },
            'status write conflict; retrying',
          );
          await sleep(delayMs);
        }
      }
    },
  };
}
