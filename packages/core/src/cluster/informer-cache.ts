import { deepFreeze } from '../freeze.js';
import type { Logger } from '../logger.js';
import type { KubeObject, ResourceRef } from '../ports/cluster.js';
import { objectKey, type Informer, type InformerEvent } from './informer-types.js';

/**
 * The longest a list is applied without yielding to the event loop: a fifth of the 50 ms a request may wait,
 * leaving room for the page's JSON parse and a garbage collection in the same stretch.
 */
const LIST_SLICE_MS = 10;

/** Kubernetes resourceVersions are opaque, but ours and etcd's are integers: compare them when they are. */
export function isNewer(candidate: string | undefined, cached: string | undefined): boolean {
  if (!cached || !candidate) return true;
  if (/^\d+$/.test(candidate) && /^\d+$/.test(cached)) return BigInt(candidate) > BigInt(cached);
  return candidate !== cached;
}

/** An informer's cache of frozen objects and its listeners, who hear every change to it. */
interface InformerCache extends Pick<Informer, 'list' | 'get' | 'on'> {
  /** A watched ADDED or MODIFIED: kept unless the cache already holds that version or a newer one. */
  upsert(object: KubeObject): void;
  /** A watched DELETED. */
  remove(object: KubeObject): void;
  /**
   * A (re)list replaces the cache; listeners see only what differs from what they last saw. A list of 20k objects
   * is applied in slices, yielding to the event loop between them so requests are not held up; returns false when
   * `superseded` says a newer attempt (or stop) took over meanwhile.
   */
  applyList(items: KubeObject[], superseded: () => boolean): Promise<boolean>;
}

export function createInformerCache(ref: ResourceRef, logger: Logger): InformerCache {
  const cache = new Map<string, KubeObject>();
  const listeners = new Set<(event: InformerEvent) => void>();

  const emit = (event: InformerEvent) => {
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch (err) {
        logger.error({ err: String(err), kind: ref.kind }, 'informer listener threw');
      }
    }
  };

  return {
    upsert(object) {
      const key = objectKey(object);
      const previous = cache.get(key);
      if (previous && !isNewer(object.metadata.resourceVersion, previous.metadata.resourceVersion)) return;
      cache.set(key, deepFreeze(object));
      emit(previous ? { type: 'MODIFIED', object, previous } : { type: 'ADDED', object });
    },

    remove(object) {
      const key = objectKey(object);
      const previous = cache.get(key);
      if (!previous) return;
      cache.delete(key);
      emit({ type: 'DELETED', object: deepFreeze(object), previous });
    },

    async applyList(items, superseded) {
      const seen = new Set<string>();
      let sliceStart = performance.now();
      for (let i = 0; i < items.length; i++) {
        const item = items[i];
        seen.add(objectKey(item));
        const previous = cache.get(objectKey(item));
        if (!previous || previous.metadata.resourceVersion !== item.metadata.resourceVersion) {
          cache.set(objectKey(item), deepFreeze(item));
          emit(previous ? { type: 'MODIFIED', object: item, previous } : { type: 'ADDED', object: item });
        }
        if (i % 64 === 63 && performance.now() - sliceStart > LIST_SLICE_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          if (superseded()) return false;
          sliceStart = performance.now();
        }
      }
      for (const [key, previous] of [...cache]) {
        if (!seen.has(key)) {
          cache.delete(key);
          emit({ type: 'DELETED', object: previous, previous });
        }
      }
      return true;
    },

    list: () => [...cache.values()],

    get: (name, namespace) => cache.get(namespace ? `${namespace}/${name}` : name),

    on(listener) {
      const own = (event: InformerEvent) => listener(event);
      listeners.add(own);
      return { close: () => void listeners.delete(own) };
    },
  };
}
