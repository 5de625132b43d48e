import { randomUUID } from 'node:crypto';
import { badRequest, conflict, notFound, unavailable } from '../../errors.js';
import { apiVersionOf, refKey, type KubeObject, type ObjectMeta, type ResourceRef } from '../../ports/cluster.js';
import { deepFreeze } from '../../freeze.js';
import type { FileStore } from './file-store.js';
import { deepEqual, isObject, mergePatch, toJson } from './json.js';
import { parseFieldSelector } from './field-selector.js';
import { parseLabelSelector } from './label-selector.js';
import type { WatchHub } from './watch-hub.js';

/**
 * The in-process object store with Kubernetes semantics: one global resourceVersion counter, generation
 * bumps on spec changes, finalizers that hold a deletion back, and an event per change. A mutation is checked
 * and applied in one synchronous step (so read-check-write is atomic without a lock), then made durable (when a
 * FileStore is given; concurrent mutations share one fsync) before it is announced to watchers or acknowledged.
 *
 * Stored objects are deeply frozen and handed out as they are: the store, every watcher and every informer
 * share one copy of each object version (a new version shares the unchanged parts of the previous one).
 */
export interface ObjectStore {
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
  create(ref: ResourceRef, obj: KubeObject): Promise<KubeObject>;
  /**
   * `dryRun`: checks and computes the write but stores nothing (as `kubectl --dry-run=server`): the object the
   * patch would leave (the current one itself for a no-op), for an admission review before the real write.
   */
  patch(ref: ResourceRef, name: string, patch: Record<string, unknown>, opts?: { namespace?: string; resourceVersion?: string; dryRun?: boolean }): Promise<KubeObject>;
  /** Like `kubectl apply` of a full object: replaces everything but status and server-set metadata. */
  replace(ref: ResourceRef, obj: KubeObject): Promise<KubeObject>;
  delete(ref: ResourceRef, name: string, namespace?: string): Promise<void>;
  /** Called synchronously after every committed change (the simulated controller wakes on it). */
  onChange(listener: (ref: ResourceRef, object: KubeObject) => void): () => void;
  /** Rewrites the snapshot when the journal has outgrown the state (a no-op without a FileStore); see needsCompaction. */
  compactIfDue(opts?: { stopping?: boolean }): Promise<void>;
  /** Waits for in-flight writes; later mutations fail. */
  close(): Promise<void>;
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Server-owned metadata that a patch or an apply cannot change. */
const SERVER_FIELDS = ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp', 'generation', 'deletionTimestamp'] as const;

interface RefObjects {
  ref: ResourceRef;
  objects: Map<string, KubeObject>;
  revision: number;
}

/** How often (in commits) the store asks whether the journal is due for compaction. */
const COMPACTION_CHECK_EVERY = 1_000;

const keyOf = (name: string, namespace?: string) => (namespace ? `${namespace}/${name}` : name);

export function createObjectStore(opts: {
  watchHub: WatchHub;
  fileStore?: FileStore;
  now: () => Date;
  initial: { objects: { ref: ResourceRef; object: KubeObject }[]; resourceVersion: number };
}): ObjectStore {
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

  const timestamp = () => opts.now().toISOString().replace(/\.\d{3}Z$/, 'Z');

  /** Namespaced refs need a namespace; cluster-scoped ones ignore any given (as the API server does). */
  const scope = (ref: ResourceRef, namespace: string | undefined): string | undefined => {
    if (!ref.namespaced) return undefined;
    if (!namespace) throw badRequest(`${ref.kind} is namespaced: a namespace is required`, { kind: ref.kind });
    if (!DNS_LABEL.test(namespace) || namespace.length > 63) throw badRequest(`invalid namespace "${namespace}"`, { field: 'metadata.namespace' });
    return namespace;
  };

  const find = (ref: ResourceRef, name: string, namespace?: string) => {
    const key = keyOf(name, scope(ref, namespace));
    return byRef.get(refKey(ref))?.objects.get(key);
  };

  /** Mutations check and apply synchronously, so one never sees another half-done; only durability is awaited. */
  const mutate = <T>(fn: () => T | Promise<T>): Promise<T> => {
    if (closed) return Promise.reject(unavailable('embedded cluster', 1));
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(err);
    }
  };

  /** Assigns the next version and applies it in memory; announces and acknowledges it once it is durable. */
  const commit = (ref: ResourceRef, next: KubeObject, type: 'ADDED' | 'MODIFIED' | 'DELETED'): Promise<KubeObject> => {
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
          void store.compactIfDue().catch(() => undefined).finally(() => (compactionScheduled = false));
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
  };

  const checkKind = (ref: ResourceRef, obj: KubeObject) => {
    const apiVersion = apiVersionOf(ref);
    if ((obj.apiVersion && obj.apiVersion !== apiVersion) || (obj.kind && obj.kind !== ref.kind)) {
      throw badRequest(`object is ${obj.apiVersion} ${obj.kind}, expected ${apiVersion} ${ref.kind}`);
    }
  };

  /** After a patch: keep server-owned fields, then settle generation and a pending deletion. */
  const finishUpdate = (ref: ResourceRef, current: KubeObject, next: KubeObject, dryRun = false): Promise<KubeObject> => {
    next.apiVersion = current.apiVersion;
    next.kind = current.kind;
    // A copy: the patched object shares unchanged (frozen) parts with the current one, metadata among them.
    const meta: ObjectMeta = isObject(next.metadata) ? ({ ...next.metadata } as ObjectMeta) : { name: current.metadata.name };
    for (const field of SERVER_FIELDS) {
      if (current.metadata[field] === undefined) delete meta[field];
      else (meta as unknown as Record<string, unknown>)[field] = current.metadata[field];
    }
    next.metadata = meta;
    if (Array.isArray(meta.finalizers) && meta.finalizers.length === 0) delete meta.finalizers;
    if (!deepEqual(current.spec, next.spec)) meta.generation = (current.metadata.generation ?? 1) + 1;
    if (deepEqual(current, next)) return Promise.resolve(current); // a no-op write changes nothing, as in Kubernetes
    if (dryRun) return Promise.resolve(next);
    if (meta.deletionTimestamp && !meta.finalizers?.length) return commit(ref, next, 'DELETED');
    return commit(ref, next, 'MODIFIED');
  };

  const mustFind = (ref: ResourceRef, name: string, namespace?: string) => {
    const current = find(ref, name, namespace);
    if (!current) throw notFound(ref.kind, namespace && ref.namespaced ? `${namespace}/${name}` : name);
    return current;
  };

  const store: ObjectStore = {
    resourceVersion: () => counter,

    refs: () => [...byRef.values()].map((e) => ({ ...e.ref })),

    stored: (ref) => byRef.get(refKey(ref))?.objects.values() ?? [],

    revision: (ref) => byRef.get(refKey(ref))?.revision ?? 0,

    *everything() {
      for (const { ref, objects } of byRef.values()) for (const object of objects.values()) yield { ref, object };
    },

    list(ref, { namespace, labelSelector, fieldSelector } = {}) {
      const selects = parseLabelSelector(labelSelector);
      const fields = parseFieldSelector(fieldSelector);
      const ns = ref.namespaced && namespace ? scope(ref, namespace) : undefined;
      return [...(byRef.get(refKey(ref))?.objects.values() ?? [])]
        .filter((o) => (!ns || o.metadata.namespace === ns) && selects(o.metadata.labels) && fields(o))
        .sort((a, b) => keyOf(a.metadata.name, a.metadata.namespace).localeCompare(keyOf(b.metadata.name, b.metadata.namespace)));
    },

    get: (ref, name, namespace) => find(ref, name, namespace),

    create(ref, input) {
      return mutate(() => {
        if (!isObject(input) || !isObject(input.metadata)) throw badRequest('object metadata is required');
        const obj = toJson(input);
        checkKind(ref, obj);
        const { name } = obj.metadata;
        if (typeof name !== 'string' || !DNS_SUBDOMAIN.test(name) || name.length > 253) {
          throw badRequest(`invalid name "${String(name)}": lower-case letters, digits, '-' and '.'`, { field: 'metadata.name' });
        }
        const namespace = scope(ref, obj.metadata.namespace);
        if (find(ref, name, namespace)) {
          throw conflict(`${ref.kind} "${keyOf(name, namespace)}" already exists`, { reason: 'AlreadyExists', kind: ref.kind, name });
        }
        const { resourceVersion: _rv, deletionTimestamp: _dt, namespace: _ns, ...meta } = obj.metadata;
        const created: KubeObject = {
          ...obj,
          apiVersion: apiVersionOf(ref),
          kind: ref.kind,
          metadata: {
            ...meta,
            name,
            ...(namespace ? { namespace } : {}),
            uid: randomUUID(),
            generation: 1,
            creationTimestamp: timestamp(),
          },
        };
        if (!created.metadata.finalizers?.length) delete created.metadata.finalizers;
        return commit(ref, created, 'ADDED');
      });
    },

    patch(ref, name, patch, { namespace, resourceVersion, dryRun } = {}) {
      return mutate(() => {
        if (!isObject(patch)) throw badRequest('a merge patch must be a JSON object');
        const current = mustFind(ref, name, namespace);
        if (resourceVersion && resourceVersion !== current.metadata.resourceVersion) {
          throw conflict(`${ref.kind} "${name}" was modified: resourceVersion ${resourceVersion} is stale`, {
            reason: 'Conflict',
            kind: ref.kind,
            name,
            resourceVersion: current.metadata.resourceVersion,
          });
        }
        const next = mergePatch(current, toJson(patch)) as KubeObject;
        return finishUpdate(ref, current, next, dryRun);
      });
    },

    replace(ref, input) {
      return mutate(() => {
        const obj = toJson(input);
        const current = mustFind(ref, obj.metadata.name, obj.metadata.namespace);
        const next: KubeObject = { ...obj, metadata: { ...obj.metadata } };
        if (current.status !== undefined) next.status = current.status;
        else delete next.status;
        return finishUpdate(ref, current, next);
      });
    },

    delete(ref, name, namespace) {
      return mutate(() => {
        const current = mustFind(ref, name, namespace);
        if (current.metadata.deletionTimestamp) return undefined; // already terminating
        if (current.metadata.finalizers?.length) {
          const next = { ...current, metadata: { ...current.metadata, deletionTimestamp: timestamp() } };
          return commit(ref, next, 'MODIFIED').then(() => undefined);
        }
        return commit(ref, { ...current, metadata: { ...current.metadata } }, 'DELETED').then(() => undefined);
      });
    },

    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async compactIfDue(opts) {
      if (!fileStore) return;
      let live = 0;
      for (const { objects } of byRef.values()) live += objects.size;
      if (!fileStore.needsCompaction(live, opts)) return;
      await fileStore.compact(() => ({ objects: [...this.everything()], resourceVersion: counter }));
    },

    async close() {
      closed = true;
      await fileStore?.close();
    },
  };
  return store;
}
