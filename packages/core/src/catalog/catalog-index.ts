import type { Informer, InformerEvent } from '../cluster/informer-types.js';
import type { Logger } from '../logger.js';
import type { Disposable, KubeObject } from '../ports/cluster.js';
import { comparatorFor, indexEntry, type IndexedEntry, type RgdSortBy, type SortOrder } from './query.js';
import type { RevisionLog } from './revisions.js';
import { buildCatalogEntry } from './rgd-entry.js';
import type { SchemaCache } from './schema-cache.js';
import type { CatalogChange, CatalogEntry } from './types.js';

export type { CatalogChange } from './types.js';

/** The catalog's entries by name, as the RGD informer has them, with the sorted views derived from them. */
interface CatalogIndex {
  get(name: string): IndexedEntry | undefined;
  /** Every entry in one order, sorted once per change and order, not per request. */
  sortedBy(sortBy: RgdSortBy, order: SortOrder): IndexedEntry[];
  /** The entries whose instances are of `kind`, by name. */
  ofKind(kind: string): CatalogEntry[];
  /** Called after the index changed, synchronously, in the informer's event order. */
  onChange(listener: (action: CatalogChange, entry: CatalogEntry) => void): Disposable;
  close(): void;
}

interface CatalogIndexDeps {
  rgds: Informer;
  schemas: SchemaCache;
  revisions: RevisionLog;
  logger?: Logger;
  /** Any change to the entries: views derived from them are stale. */
  invalidated(): void;
}

/** An in-memory index of catalog RGDs kept current by the RGD informer (never re-read on a request). */
export function createCatalogIndex({ rgds, schemas, revisions, logger, invalidated }: CatalogIndexDeps): CatalogIndex {
  const index = new Map<string, IndexedEntry>();
  const listeners = new Set<(action: CatalogChange, entry: CatalogEntry) => void>();

  // Derived views, rebuilt lazily after a change: one sort per (key, order) per change, not per request.
  let sorted = new Map<string, IndexedEntry[]>();
  let byKind: Map<string, CatalogEntry[]> | undefined;
  const invalidate = () => {
    sorted = new Map();
    byKind = undefined;
    invalidated();
  };

  const sortedBy = (sortBy: RgdSortBy, order: SortOrder): IndexedEntry[] => {
    const key = `${sortBy}:${order}`;
    let items = sorted.get(key);
    if (!items) {
      items = [...index.values()].sort(comparatorFor(sortBy, order));
      sorted.set(key, items);
    }
    return items;
  };

  const compileAndReport = (entry: CatalogEntry) => {
    const result = schemas.compile(entry);
    if (!result.ok) logger?.warn({ rgd: entry.name, revision: entry.revision, error: result.error }, 'RGD schema does not compile');
  };

  const notify = (action: CatalogChange, entry: CatalogEntry) => {
    for (const listener of [...listeners]) {
      try {
        listener(action, entry);
      } catch (error) {
        logger?.error({ err: error, rgd: entry.name, action }, 'catalog change listener failed');
      }
    }
  };
  const emit = (action: CatalogChange, entry: CatalogEntry) => {
    if (action !== 'delete') revisions.observe(entry);
    notify(action, entry);
  };

  const remove = (name: string) => {
    index.delete(name);
    schemas.forget(name);
    invalidate();
  };

  /** Applies one RGD object; returns the change it made to the catalog, if any. */
  const apply = (object: KubeObject): [CatalogChange, CatalogEntry] | undefined => {
    const entry = { ...buildCatalogEntry(object), lastIssuedRevision: revisions.latest(object.metadata.name) };
    const existing = index.get(entry.name);
    if (!entry.inCatalog) {
      if (!existing) return undefined;
      remove(entry.name);
      return ['delete', existing.entry];
    }
    index.set(entry.name, indexEntry(entry));
    invalidate();
    compileAndReport(entry); // compile once per revision, at index time, so requests only read the cache
    return [existing ? 'update' : 'add', entry];
  };

  const onEvent = (event: InformerEvent) => {
    let change: [CatalogChange, CatalogEntry] | undefined;
    if (event.type === 'DELETED') {
      const existing = index.get(event.object.metadata.name);
      if (existing) {
        remove(existing.entry.name);
        change = ['delete', existing.entry];
      }
      // The RGD is gone from the cluster (not only from the catalog): its revisions go with it.
      if (existing || revisions.latest(event.object.metadata.name) > 0) revisions.forget(existing?.entry ?? { name: event.object.metadata.name });
    } else {
      change = apply(event.object);
    }
    if (change) emit(...change);
  };

  for (const object of rgds.list()) {
    const change = apply(object);
    if (change && change[0] !== 'delete') revisions.observe(change[1]);
  }
  const subscription = rgds.on(onEvent);
  /** A revision was recorded (here or on another replica): the entry's `lastIssuedRevision` moves with it. */
  const revisionSubscription = revisions.onLatestChanged((name) => {
    const existing = index.get(name);
    const latest = revisions.latest(name);
    if (!existing || existing.entry.lastIssuedRevision === latest) return;
    const entry = { ...existing.entry, lastIssuedRevision: latest };
    index.set(name, indexEntry(entry));
    invalidate();
    notify('update', entry);
  });

  return {
    get: (name) => index.get(name),
    sortedBy,

    ofKind(kind) {
      if (!byKind) {
        byKind = new Map();
        for (const { entry } of sortedBy('name', 'asc')) {
          const list = byKind.get(entry.kind) ?? [];
          list.push(entry);
          byKind.set(entry.kind, list);
        }
      }
      return byKind.get(kind) ?? [];
    },

    onChange(listener) {
      listeners.add(listener);
      return { close: () => void listeners.delete(listener) };
    },

    close() {
      subscription.close();
      revisionSubscription.close();
      listeners.clear();
    },
  };
}
