import { badRequest, unavailable } from '../../errors.js';
import { deepFreeze } from '../../freeze.js';
import { refKey, type KubeObject, type ResourceRef } from '../../ports/cluster.js';
import type { FileStore } from './file-store.js';
import type { WatchHub } from './watch-hub.js';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** How often (in commits) the store asks whether the journal is due for compaction. */
const COMPACTION_CHECK_EVERY = 1_000;

interface RefObjects {
  ref: ResourceRef;
  objects: Map<string, KubeObject>;
  revision: number;
}

export const keyOf = (name: string, namespace?: string) => (namespace ? `${namespace}/${name}` : name);

/**
 * What the object store holds and how a change is committed: the objects by resource, the global
 * resourceVersion counter, durability (the FileStore's journal), and who hears of a committed change.
 */
export interface ObjectState {
  resourceVersion(): number;
  /** The resource's objects by `keyOf`, undefined when it never held one. */
  objectsOf(ref: ResourceRef): RefObjects | undefined;
  refs(): ResourceRef[];
  everything(): Iterable<{ ref: ResourceRef; object: KubeObject }>;
  /** Namespaced refs need a namespace; cluster-scoped ones ignore any given (as the API server does). */
  scope(ref: ResourceRef, namespace: string | undefined): string | undefined;
  find(ref: ResourceRef, name: string, namespace?: string): KubeObject | undefined;
  /** Assigns the next version and applies it in memory; announces and acknowledges it once it is durable. */
  commit(ref: ResourceRef, next: KubeObject, type: 'ADDED' | 'MODIFIED' | 'DELETED'): Promise<KubeObject>;
  /** Mutations check and apply synchronously, so one never sees another half-done; only durability is awaited. */
  mutate<T>(fn: () => T | Promise<T>): Promise<T>;
  onChange(listener: (ref: ResourceRef, object: KubeObject) => void): () => void;
  compactIfDue(opts?: { stopping?: boolean }): Promise<void>;
  close(): Promise<void>;
}

export function createObjectState(opts: {
  watchHub: WatchHub;
  fileStore?: FileStore;
  initial: { objects: { ref: ResourceRef; object: KubeObject }[]; resourceVersion: number };
}): ObjectState {
  const { watchHub, fileStore } = opts;
  const byRef = new Map<string, RefObjects>();
  const listeners = new Set<(ref: ResourceRef, object: KubeObject) => void>();
  let counter = opts.initial.resourceVersion;
  let closed = false;
  let commitsSinceCheck = 0;
  let compactionScheduled = false;

  const refObjects = (ref: ResourceRef): RefObjects => {
    const key = refKey(ref);
    let entry = byRef.get(key);
    if (!entry) {
      entry = { ref: { ...ref }, objects: new Map(), revision: 0 };
      byRef.set(key, entry);
    }
    return entry;
  };

  for (const { ref, object } of opts.initial.objects) {
    refObjects(ref).objects.set(keyOf(object.metadata.name, object.metadata.namespace), deepFreeze(object));
  }

  const scope = (ref: ResourceRef, namespace: string | undefined): string | undefined => {
    if (!ref.namespaced) return undefined;
    if (!namespace) throw badRequest(`${ref.kind} is namespaced: a namespace is required`, { kind: ref.kind });
    if (!DNS_LABEL.test(namespace) || namespace.length > 63) throw badRequest(`invalid namespace "${namespace}"`, { field: 'metadata.namespace' });
    return namespace;
  };

  function* everything() {
    for (const { ref, objects } of byRef.values()) for (const object of objects.values()) yield { ref, object };
  }

  const compactIfDue = async (opts?: { stopping?: boolean }) => {
    if (!fileStore) return;
    let live = 0;
    for (const { objects } of byRef.values()) live += objects.size;
    if (!fileStore.needsCompaction(live, opts)) return;
    await fileStore.compact(() => ({ objects: [...everything()], resourceVersion: counter }));
  };

  return {
    resourceVersion: () => counter,
    objectsOf: (ref) => byRef.get(refKey(ref)),
    refs: () => [...byRef.values()].map((e) => ({ ...e.ref })),
    everything,
    scope,

    find(ref, name, namespace) {
      const key = keyOf(name, scope(ref, namespace));
      return byRef.get(refKey(ref))?.objects.get(key);
    },

    commit(ref, next, type) {
      counter += 1;
      next.metadata.resourceVersion = String(counter);
      deepFreeze(next);
      const stored = refObjects(ref);
      const objects = stored.objects;
      const key = keyOf(next.metadata.name, next.metadata.namespace);
      const previous = objects.get(key);
      if (type === 'DELETED') objects.delete(key);
      else objects.set(key, next);
      stored.revision += 1;
      const durable = fileStore ? fileStore.append({ rv: counter, ref, object: next, deleted: type === 'DELETED' }) : Promise.resolve();
      return durable.then(
        () => {
          watchHub.record(ref, type, next);
          for (const listener of listeners) listener(ref, next);
          if (!compactionScheduled && ++commitsSinceCheck >= COMPACTION_CHECK_EVERY) {
            commitsSinceCheck = 0;
            compactionScheduled = true;
            void compactIfDue().catch(() => undefined).finally(() => (compactionScheduled = false));
          }
          return next;
        },
        (err: unknown) => {
          // Not acknowledged, so not applied: put back what was there, unless a later write replaced it already.
          if ((type === 'DELETED' ? !objects.has(key) : objects.get(key) === next)) {
            if (previous) objects.set(key, previous);
            else objects.delete(key);
            stored.revision += 1;
          }
          throw unavailable('embedded cluster storage', 1, err);
        },
      );
    },

    mutate<T>(fn: () => T | Promise<T>): Promise<T> {
      if (closed) return Promise.reject(unavailable('embedded cluster', 1));
      try {
        return Promise.resolve(fn());
      } catch (err) {
        return Promise.reject(err);
      }
    },

    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    compactIfDue,

    async close() {
      closed = true;
      await fileStore?.close();
    },
  };
}
