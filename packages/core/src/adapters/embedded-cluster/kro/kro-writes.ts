import { objectKey, type Informer, type InformerEvent } from '../../../cluster/informer-types.js';
import { isPorticoError } from '../../../errors.js';
import type { Logger } from '../../../logger.js';
import { refKey, type Cluster, type KubeObject, type ResourceRef } from '../../../ports/cluster.js';
import type { ResourceDescription } from '../../../catalog/resource-descriptions.js';
import { createKroEventRecorder, type KroEvent } from './kro-events.js';
import { withTransitions, type Condition, type ConditionSpec } from './kro-status.js';

/**
 * The controller's reads and writes: what our own writes returned is kept until the informer shows that
 * version (or a later one), since reconciling from a cache that lags our last write would only earn a conflict.
 */
export interface KroWrites {
  /** The newest of the informer's copy and what our last write returned. */
  current(ref: ResourceRef, informer: Informer, key: string): KubeObject | undefined;
  /**
   * A merge patch guarded by the resourceVersion we reconciled from. Returns whether more work may follow: a
   * conflict (someone else wrote) re-reads the object and tries again next step; a vanished object needs nothing.
   */
  write(ref: ResourceRef, obj: KubeObject, patch: Record<string, unknown>, events?: { graph: ResourceDescription[]; list: KroEvent[] }): Promise<boolean>;
  /** A status with the given state and conditions, transition times carried over from the object's. */
  statusPatch(obj: KubeObject, state: string, conditions: ConditionSpec[]): { state: string; conditions: Condition[] };
  /**
   * Whether an informer event (not a deletion) is news: false when it is our own write coming back (or an older
   * version). Forgets our write once the informer has caught up with it.
   */
  isNews(ref: ResourceRef, key: string, event: InformerEvent): boolean;
  forget(ref: ResourceRef, key: string): void;
  clear(): void;
}

export const idOf = (ref: ResourceRef, key: string) => `${refKey(ref)}|${key}`;

/** Resource versions are opaque, but the API server's and ours are integers: compare them when they are. */
function newerThan(candidate: string | undefined, known: string | undefined): boolean {
  if (!candidate || !known) return candidate !== known;
  if (/^\d+$/.test(candidate) && /^\d+$/.test(known)) return BigInt(candidate) > BigInt(known);
  return candidate !== known;
}

/** `namespace/name` or `name` (objectKey) back to informer.get's arguments. */
function nameAndNamespace(key: string): [string, string | undefined] {
  const slash = key.indexOf('/');
  return slash < 0 ? [key, undefined] : [key.slice(slash + 1), key.slice(0, slash)];
}

export function createKroWrites(cluster: Cluster, logger: Logger, now: () => string): KroWrites {
  const recordEvents = createKroEventRecorder(cluster, logger, now);
  const written = new Map<string, KubeObject>();

  return {
    current(ref, informer, key) {
      const id = idOf(ref, key);
      const cached = informer.get(...nameAndNamespace(key));
      const mine = written.get(id);
      // Everything reconciled came through the informer first: gone from it means deleted.
      if (!cached || !mine) {
        if (!cached) written.delete(id);
        return cached;
      }
      if (!newerThan(mine.metadata.resourceVersion, cached.metadata.resourceVersion)) {
        written.delete(id);
        return cached;
      }
      return mine;
    },

    async write(ref, obj, patch, events) {
      const { name, namespace } = obj.metadata;
      const id = idOf(ref, objectKey(obj));
      try {
        const result = await cluster.patch(ref, name, patch, { namespace, resourceVersion: obj.metadata.resourceVersion });
        written.set(id, result);
        // Reported only once the change is stored: a write that lost a race is retried, and reports then.
        if (events?.list.length) await recordEvents(ref, result, events.graph, events.list);
        return true;
      } catch (err) {
        if (!isPorticoError(err)) throw err;
        if (err.code === 'NOT_FOUND') {
          written.delete(id);
          return false;
        }
        if (err.code !== 'CONFLICT') throw err;
        const fresh = await cluster.get(ref, name, namespace);
        if (fresh) written.set(id, fresh);
        else written.delete(id);
        return fresh !== undefined;
      }
    },

    statusPatch: (obj, state, conditions) => ({
      state,
      conditions: withTransitions(obj.status?.conditions, conditions, obj.metadata.generation ?? 1, now()),
    }),

    isNews(ref, key, event) {
      const id = idOf(ref, key);
      const mine = written.get(id);
      if (!mine) return true;
      if (!newerThan(event.object.metadata.resourceVersion, mine.metadata.resourceVersion)) {
        if (event.object.metadata.resourceVersion === mine.metadata.resourceVersion) written.delete(id);
        return false;
      }
      written.delete(id);
      return true;
    },

    forget: (ref, key) => void written.delete(idOf(ref, key)),
    clear: () => written.clear(),
  };
}
