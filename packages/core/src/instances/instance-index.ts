import type * as api from '@portico/api';
import type { CatalogChange, CatalogEntry } from '../catalog/index.js';
import type { Informer, InformerEvent, InformerEventType } from '../cluster/informer-types.js';
import { reached, type WriteTarget } from '../cluster/resource-version.js';
import type { Logger } from '../logger.js';
import type { Cluster, Disposable, KubeObject, ResourceRef } from '../ports/cluster.js';
import { deepFreeze } from '../freeze.js';
import { withLazyJsonText } from '../json-text.js';
import type { InstanceKey } from '../types.js';
import { instanceId, instanceObject, keyOf, toInstance } from './instance-resource.js';
import { createSortedViews, type InstanceSortBy, type SortedView, type ViewSpec } from './sorted-views.js';

/** How the index obtains informers (the cluster module's `createInformer`). */
export type CreateInformer = (cluster: Cluster, ref: ResourceRef, opts?: { namespace?: string; logger?: Logger }) => Informer;

/** The part of the catalog the index follows. */
export interface CatalogSource {
  entries(): CatalogEntry[];
  onChange(listener: (action: CatalogChange, entry: CatalogEntry) => void): Disposable;
}

/**
 * One instance as the index holds it: converted once per change, read many times. `object` is the informer's
 * frozen object (the one the cluster adapter handed out), `instance` its frozen wire form, serialised once.
 */
export interface IndexedInstance {
  /** `<namespace>/<kind>/<name>`. */
  id: string;
  object: KubeObject;
  instance: api.Instance;
  /** The value of each sort key, computed once (a date sort compares numbers, not timestamps). */
  sortKeys: Record<InstanceSortBy, string | number>;
  /** '' when the object carries no project label (created outside Portico): visible to Server Admins only. */
  project: string;
  /** `instances/<project>/<namespace>/<kind>/<name>`. */
  rbacObject: string;
  /** `<group>/<version>/<kind>` of the informer that holds it. */
  kindKey: string;
  /** The resource it is read and written through. */
  ref: ResourceRef;
}

/** A write the index should show: a resourceVersion (or a later one), or the object gone / being deleted. */
export type IndexTarget = WriteTarget;

export interface IndexChange {
  action: 'add' | 'update' | 'delete';
  current: IndexedInstance;
  previous?: IndexedInstance;
  /** The watch event behind the change; `UNWATCHED` when the kind left the catalog. */
  cause: InformerEventType | 'UNWATCHED';
}

/** A kind that joined the catalog after start(), indexed with the instances it already had. */
export interface KindIndexed {
  rgdName: string;
  ref: ResourceRef;
  /** How many instances its first list brought in (at least one). */
  instances: number;
  /** The highest resourceVersion among them: the same on every replica that lists the same state. */
  resourceVersion: string;
}

export interface InstanceIndex {
  /** Starts an informer for every catalog kind and follows catalog changes; resolves when all have synced. */
  start(): Promise<void>;
  stop(): void;
  get(key: InstanceKey): IndexedInstance | undefined;
  inProject(project: string): Iterable<IndexedInstance>;
  projects(): string[];
  all(): Iterable<IndexedInstance>;
  /** How many instances the index holds: in `project`, or everywhere. */
  size(project?: string): number;
  /** Instances per RGD name: in `project`, or everywhere. Maintained on every change, never counted on a read. */
  rgdCounts(project?: string): ReadonlyMap<string, number>;
  /** Grows whenever an instance comes, goes or changes project or RGD (what counts per RGD depend on); not on a status change. */
  countsRevision(): number;
  /** The sorted view for `spec` (see sorted-views.ts): a page is read by position. */
  view(spec: ViewSpec): SortedView<IndexedInstance>;
  /** The watched resource of a kind, undefined when no catalog RGD serves it (yet). */
  refOf(entry: CatalogEntry): ResourceRef | undefined;
  onChange(listener: (change: IndexChange) => void): Disposable;
  /**
   * A kind's first list is indexed without per-instance changes; when the kind joins after start() and brings
   * instances along, counts move all the same, and this tells.
   */
  onKindIndexed(listener: (joined: KindIndexed) => void): Disposable;
  /** Resolves after pending informer starts/stops (tests, and create() waiting for a new kind). */
  settled(): Promise<void>;
  /**
   * Resolves once the index shows a write, so the writer's next read includes it (read-your-writes); `false`
   * after `timeoutMs` rather than an error: the write itself has succeeded.
   */
  waitFor(key: InstanceKey, target: IndexTarget, timeoutMs?: number): Promise<boolean>;
}

interface WatchedKind {
  ref: ResourceRef;
  informer: Informer;
  subscription: Disposable;
  /** The catalog entry that owns the kind now; refreshed on RGD updates. */
  entry: CatalogEntry;
  /** True until the informer's first list is applied. */
  syncing: boolean;
}

const gvk = (e: { group: string; version: string; kind: string }) => `${e.group}/${e.version}/${e.kind}`;

const integer = /^\d+$/;

function highestVersion(objects: KubeObject[]): string {
  let best = '';
  for (const o of objects) {
    const rv = o.metadata.resourceVersion ?? '';
    if (!best || (integer.test(rv) && integer.test(best) ? BigInt(rv) > BigInt(best) : rv > best)) best = rv;
  }
  return best;
}

/**
 * The instance index: one informer per catalog RGD kind (started when the RGD enters the catalog, stopped when it
 * leaves) and in-memory maps by id and by project, updated from informer events. Requests read only these maps.
 */
export function createInstanceIndex(deps: {
  cluster: Cluster;
  catalog: CatalogSource;
  createInformer: CreateInformer;
  logger: Logger;
}): InstanceIndex {
  const { cluster, catalog, createInformer } = deps;
  const logger = deps.logger.child({ module: 'instance-index' });
  const byId = new Map<string, IndexedInstance>();
  const byProject = new Map<string, Map<string, IndexedInstance>>();
  const views = createSortedViews<IndexedInstance>();
  const rgdCountsAll = new Map<string, number>();
  const rgdCountsByProject = new Map<string, Map<string, number>>();
  const countRgd = (item: IndexedInstance, delta: 1 | -1) => {
    let inProject = rgdCountsByProject.get(item.project);
    if (!inProject) rgdCountsByProject.set(item.project, (inProject = new Map()));
    for (const counts of [rgdCountsAll, inProject]) {
      const next = (counts.get(item.instance.rgdName) ?? 0) + delta;
      if (next > 0) counts.set(item.instance.rgdName, next);
      else counts.delete(item.instance.rgdName);
    }
    if (inProject.size === 0) rgdCountsByProject.delete(item.project);
  };
  const watched = new Map<string, WatchedKind>();
  const listeners = new Set<(change: IndexChange) => void>();
  const kindListeners = new Set<(joined: KindIndexed) => void>();
  let catalogSubscription: Disposable | undefined;
  let stopped = false;
  /** True once the kinds of the catalog at start() are indexed: later kinds are news to subscribers. */
  let started = false;
  // Informer starts and stops run one at a time, in catalog-event order.
  let queue: Promise<void> = Promise.resolve();

  const emit = (change: IndexChange) => {
    for (const listener of [...listeners]) {
      try {
        listener(change);
      } catch (err) {
        logger.error({ err, id: change.current.id }, 'instance index listener failed');
      }
    }
  };

  const emitKindIndexed = (joined: KindIndexed) => {
    for (const listener of [...kindListeners]) {
      try {
        listener(joined);
      } catch (err) {
        logger.error({ err, kind: joined.ref.kind }, 'instance index listener failed');
      }
    }
  };

  const projectBucket = (project: string) => {
    let bucket = byProject.get(project);
    if (!bucket) byProject.set(project, (bucket = new Map()));
    return bucket;
  };

  const unlink = (item: IndexedInstance) => {
    countRgd(item, -1);
    byId.delete(item.id);
    const bucket = byProject.get(item.project);
    bucket?.delete(item.id);
    if (bucket?.size === 0) byProject.delete(item.project);
  };

  const keyOfKind = (object: KubeObject, kind: WatchedKind): InstanceKey => {
    const key = keyOf(object);
    if (!kind.ref.namespaced) key.namespace = '';
    return key;
  };

  const indexed = (object: KubeObject, kind: WatchedKind): IndexedInstance => {
    const instance = deepFreeze(withLazyJsonText(toInstance(object, { isClusterScoped: !kind.ref.namespaced, rgdName: kind.entry.name })));
    const key = keyOfKind(object, kind);
    return {
      id: instanceId(key),
      object,
      instance,
      sortKeys: {
        name: instance.name,
        namespace: instance.namespace,
        kind: instance.kind,
        project: instance.project,
        health: instance.health,
        createdAt: Date.parse(instance.createdAt) || 0,
        updatedAt: Date.parse(instance.updatedAt) || 0,
      },
      project: instance.project,
      rbacObject: instanceObject(instance.project, key),
      kindKey: gvk(kind.ref),
      ref: kind.ref,
    };
  };

  let countsRevision = 0;
  const upsert = (object: KubeObject, kind: WatchedKind, cause: InformerEventType, silent: boolean) => {
    const item = indexed(object, kind);
    const previous = byId.get(item.id);
    if (!previous || previous.project !== item.project || previous.instance.rgdName !== item.instance.rgdName) countsRevision++;
    if (previous) unlink(previous);
    byId.set(item.id, item);
    projectBucket(item.project).set(item.id, item);
    countRgd(item, 1);
    views.update(previous, item);
    if (!silent) emit({ action: previous ? 'update' : 'add', current: item, previous, cause });
  };

  const remove = (id: string, cause: IndexChange['cause']) => {
    const previous = byId.get(id);
    if (!previous) return;
    countsRevision++;
    unlink(previous);
    views.update(previous, undefined);
    emit({ action: 'delete', current: previous, previous, cause });
  };

  const onInformerEvent = (kind: WatchedKind) => (event: InformerEvent) => {
    if (event.type === 'DELETED') remove(instanceId(keyOfKind(event.object, kind)), 'DELETED');
    // The first list is indexed without events: a (re)start of this process is not news to subscribers.
    else upsert(event.object, kind, event.type, kind.syncing);
  };

  const startKind = async (entry: CatalogEntry) => {
    const ref = await cluster.discover(entry.group, entry.version, entry.kind);
    if (!ref) {
      // The CRD is not served yet (RGD not Active); the RGD's next update retries.
      logger.debug({ rgd: entry.name, kind: entry.kind }, 'instance kind not served yet');
      return;
    }
    if (stopped || watched.has(gvk(entry))) return;
    const informer = createInformer(cluster, ref, { logger });
    const kind: WatchedKind = { ref, informer, entry, subscription: { close() {} }, syncing: true };
    watched.set(gvk(entry), kind);
    kind.subscription = informer.on(onInformerEvent(kind));
    try {
      await informer.start();
    } catch (err) {
      logger.warn({ err, kind: entry.kind }, 'instance informer did not sync');
    }
    kind.syncing = false;
    const listed = informer.list();
    logger.info({ kind: entry.kind, rgd: entry.name, instances: listed.length }, 'watching instances');
    if (started && !stopped && watched.get(gvk(entry)) === kind && listed.length > 0) {
      emitKindIndexed({ rgdName: kind.entry.name, ref, instances: listed.length, resourceVersion: highestVersion(listed) });
    }
  };

  const stopKind = (key: string) => {
    const kind = watched.get(key);
    if (!kind) return;
    watched.delete(key);
    kind.subscription.close();
    kind.informer.stop();
    for (const item of [...byId.values()]) if (item.kindKey === key) remove(item.id, 'UNWATCHED');
    logger.info({ kind: kind.entry.kind, rgd: kind.entry.name }, 'stopped watching instances');
  };

  /** Brings the set of informers in line with the catalog: one per kind of a catalog entry. */
  const reconcile = async () => {
    if (stopped) return;
    const wanted = new Map<string, CatalogEntry>();
    for (const entry of catalog.entries()) if (entry.kind && entry.version && !wanted.has(gvk(entry))) wanted.set(gvk(entry), entry);
    for (const key of [...watched.keys()]) if (!wanted.has(key)) stopKind(key);
    await Promise.all(
      [...wanted].map(async ([key, entry]) => {
        const kind = watched.get(key);
        if (kind) kind.entry = entry;
        else await startKind(entry);
      }),
    );
  };

  const enqueue = (work: () => Promise<void>) => {
    queue = queue.then(work).catch((err) => logger.error({ err }, 'instance index reconcile failed'));
    return queue;
  };

  return {
    async start() {
      stopped = false;
      catalogSubscription = catalog.onChange(() => void enqueue(reconcile));
      await enqueue(reconcile);
      started = true;
    },

    stop() {
      stopped = true;
      started = false;
      catalogSubscription?.close();
      catalogSubscription = undefined;
      for (const kind of watched.values()) {
        kind.subscription.close();
        kind.informer.stop();
      }
      watched.clear();
      byId.clear();
      byProject.clear();
      views.clear();
      rgdCountsAll.clear();
      rgdCountsByProject.clear();
      countsRevision++;
    },

    get(key) {
      return byId.get(instanceId(key));
    },

    inProject(project) {
      return byProject.get(project)?.values() ?? [];
    },

    projects() {
      return [...byProject.keys()];
    },

    all() {
      return byId.values();
    },

    size(project) {
      return project === undefined ? byId.size : (byProject.get(project)?.size ?? 0);
    },

    rgdCounts(project) {
      return project === undefined ? rgdCountsAll : (rgdCountsByProject.get(project) ?? new Map());
    },

    countsRevision: () => countsRevision,

    view(spec) {
      return views.view(spec, function* () {
        if (!spec.projects) yield* byId.values();
        else for (const project of spec.projects) yield* byProject.get(project)?.values() ?? [];
      });
    },

    refOf(entry) {
      return watched.get(gvk(entry))?.ref;
    },

    onChange(listener) {
      listeners.add(listener);
      return { close: () => void listeners.delete(listener) };
    },

    onKindIndexed(listener) {
      kindListeners.add(listener);
      return { close: () => void kindListeners.delete(listener) };
    },

    settled() {
      return queue;
    },

    waitFor(key, target, timeoutMs = 5_000) {
      const id = instanceId(key);
      if (reached(byId.get(id)?.object, target)) return Promise.resolve(true);
      return new Promise((resolve) => {
        const listener = () => {
          if (reached(byId.get(id)?.object, target)) finish(true);
        };
        const finish = (ok: boolean) => {
          clearTimeout(timer);
          listeners.delete(listener);
          resolve(ok);
        };
        const timer = setTimeout(() => finish(false), timeoutMs);
        timer.unref?.();
        listeners.add(listener);
      });
    },
  };
}
