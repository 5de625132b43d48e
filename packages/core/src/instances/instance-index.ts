import type { Logger } from '../logger.js';
import type { Cluster } from '../ports/cluster.js';
import { reached } from '../cluster/resource-version.js';
import { createIndexKinds } from './index-kinds.js';
import { createIndexStore } from './index-store.js';
import type { CatalogSource, CreateInformer, IndexChange, InstanceIndex, KindIndexed } from './index-types.js';

export type { CatalogSource, CreateInformer, IndexChange, IndexedInstance, IndexTarget, InstanceIndex, KindIndexed } from './index-types.js';

/** Listeners called in order; one that throws is logged and does not stop the others. */
function createListeners<T>(onError: (err: unknown, value: T) => void) {
  const listeners = new Set<(value: T) => void>();
  return {
    add(listener: (value: T) => void) {
      listeners.add(listener);
      return { close: () => void listeners.delete(listener) };
    },
    delete: (listener: (value: T) => void) => void listeners.delete(listener),
    emit(value: T) {
      for (const listener of [...listeners]) {
        try {
          listener(value);
        } catch (err) {
          onError(err, value);
        }
      }
    },
  };
}

/**
 * The instance index: one informer per catalog RGD kind (started when the RGD enters the catalog, stopped when it
 * leaves) and in-memory maps by id and by project, updated from informer events. Requests read only these maps.
 * The maps are index-store's, the informers index-kinds'; this file wires them and tells listeners.
 */
export function createInstanceIndex(deps: {
  cluster: Cluster;
  catalog: CatalogSource;
  createInformer: CreateInformer;
  logger: Logger;
}): InstanceIndex {
  const logger = deps.logger.child({ module: 'instance-index' });
  const changes = createListeners<IndexChange>((err, change) => logger.error({ err, id: change.current.id }, 'instance index listener failed'));
  const joins = createListeners<KindIndexed>((err, joined) => logger.error({ err, kind: joined.ref.kind }, 'instance index listener failed'));
  const store = createIndexStore(changes.emit);
  const kinds = createIndexKinds({ ...deps, logger, store, kindIndexed: joins.emit });

  return {
    get: store.get,
    inProject: store.inProject,
    projects: store.projects,
    all: store.all,
    size: store.size,
    rgdCounts: store.rgdCounts,
    countsRevision: store.countsRevision,
    view: store.view,
    start: kinds.start,
    refOf: kinds.refOf,
    settled: kinds.settled,
    onChange: changes.add,
    onKindIndexed: joins.add,

    stop() {
      kinds.stop();
      store.clear();
    },

    waitFor(key, target, timeoutMs = 5_000) {
      if (reached(store.get(key)?.object, target)) return Promise.resolve(true);
      return new Promise((resolve) => {
        const listener = () => {
          if (reached(store.get(key)?.object, target)) finish(true);
        };
        const finish = (ok: boolean) => {
          clearTimeout(timer);
          changes.delete(listener);
          resolve(ok);
        };
        const timer = setTimeout(() => finish(false), timeoutMs);
        timer.unref?.();
        changes.add(listener);
      });
    },
  };
}
