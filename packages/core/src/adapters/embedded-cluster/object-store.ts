import type { KubeObject, ResourceRef } from '../../ports/cluster.js';
import type { FileStore } from './file-store.js';
import { parseFieldSelector } from './field-selector.js';
import { parseLabelSelector } from './label-selector.js';
import { createObjectState, keyOf } from './object-state.js';
import { createObjectWrites, type ObjectWrites } from './object-writes.js';
import type { WatchHub } from './watch-hub.js';

/**
 * The in-process object store with Kubernetes semantics: one global resourceVersion counter, generation
 * bumps on spec changes, finalizers that hold a deletion back, and an event per change. A mutation is checked
 * and applied in one synchronous step (so read-check-write is atomic without a lock), then made durable (when a
 * FileStore is given; concurrent mutations share one fsync) before it is announced to watchers or acknowledged.
 *
 * Stored objects are deeply frozen and handed out as they are: the store, every watcher and every informer
 * share one copy of each object version (a new version shares the unchanged parts of the previous one). What it
 * holds and how a change is committed are object-state's; the writes' checks object-writes'.
 */
export interface ObjectStore extends ObjectWrites {
  readonly resourceVersion: () => number;
  refs(): ResourceRef[];
  /** The stored (frozen) objects of a resource, unsorted: for the store's own lookups (discovery). */
  stored(ref: ResourceRef): Iterable<Readonly<KubeObject>>;
  /** Moves whenever what `stored(ref)` holds changes (also when a write is undone), at once: for memos of it. */
  revision(ref: ResourceRef): number;
  /** Every stored object, for a snapshot. */
  everything(): Iterable<{ ref: ResourceRef; object: KubeObject }>;
  list(ref: ResourceRef, opts?: { namespace?: string; labelSelector?: string; fieldSelector?: string }): KubeObject[];
  get(ref: ResourceRef, name: string, namespace?: string): KubeObject | undefined;
  /** Called synchronously after every committed change (the simulated controller wakes on it). */
  onChange(listener: (ref: ResourceRef, object: KubeObject) => void): () => void;
  /** Rewrites the snapshot when the journal has outgrown the state (a no-op without a FileStore); see needsCompaction. */
  compactIfDue(opts?: { stopping?: boolean }): Promise<void>;
  /** Waits for in-flight writes; later mutations fail. */
  close(): Promise<void>;
}

export function createObjectStore(opts: {
  watchHub: WatchHub;
  fileStore?: FileStore;
  now: () => Date;
  initial: { objects: { ref: ResourceRef; object: KubeObject }[]; resourceVersion: number };
}): ObjectStore {
  const state = createObjectState(opts);
  const { scope, find } = state;

  return {
    ...createObjectWrites(state, opts.now),

    resourceVersion: state.resourceVersion,
    refs: state.refs,
    stored: (ref) => state.objectsOf(ref)?.objects.values() ?? [],
    revision: (ref) => state.objectsOf(ref)?.revision ?? 0,
    everything: state.everything,

    list(ref, { namespace, labelSelector, fieldSelector } = {}) {
      const selects = parseLabelSelector(labelSelector);
      const fields = parseFieldSelector(fieldSelector);
      const ns = ref.namespaced && namespace ? scope(ref, namespace) : undefined;
      return [...(state.objectsOf(ref)?.objects.values() ?? [])]
        .filter((o) => (!ns || o.metadata.namespace === ns) && selects(o.metadata.labels) && fields(o))
        .sort((a, b) => keyOf(a.metadata.name, a.metadata.namespace).localeCompare(keyOf(b.metadata.name, b.metadata.namespace)));
    },

    get: (ref, name, namespace) => find(ref, name, namespace),
    onChange: state.onChange,
    compactIfDue: state.compactIfDue,
    close: state.close,
  };
}
