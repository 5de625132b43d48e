import type * as api from '@portico/api';
import { actorKey, type Actor } from '../actor.js';
import type { InformerEvent, Informer } from '../cluster/informer-types.js';
import { notFound, unprocessable } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Disposable, KubeObject } from '../ports/cluster.js';
import type { Authorizer, CatalogService } from '../types.js';
import { comparatorFor, indexEntry, isRgdSortBy, matcherFor, type IndexedEntry, type RgdSortBy, type SortOrder } from './query.js';
import { formSchemaOf } from './form-schema.js';
import { graphOf } from './graph.js';
import { createRevisionLog } from './revisions.js';
import { buildCatalogEntry } from './rgd-entry.js';
import { createSchemaCache } from './schema-cache.js';
import type { CatalogEntry, JsonSchemaObject } from './types.js';
import { visibilityFor } from './visibility.js';
import { rgdJsonParts, toRgd, toRgdDetail } from './wire.js';
import { withJsonText, withLazyJsonText } from '../json-text.js';
import { deepFreeze } from '../freeze.js';
import { setBounded } from '../bounded-map.js';
import { createPageMemo } from '../page-memo.js';

export type CatalogChange = 'add' | 'update' | 'delete';

export interface CatalogDeps {
  /** Informer over `kro.run/v1alpha1 ResourceGraphDefinition`; the index follows its events. */
  rgds: Informer;
  authz: Authorizer;
  logger?: Logger;
  /** Instances per RGD name that `actor` may see (from the instances module); 0 when absent. */
  instanceCounts?: (actor: Actor, names?: readonly string[]) => ReadonlyMap<string, number>;
  /**
   * Moves whenever `instanceCounts` may answer differently for the same caller, policy and catalog (an instance
   * came, went or moved). Without it, list pages with counts are built on every request.
   */
  instanceCountsRevision?: () => number;
  /** Clock of the revision log (tests). */
  now?: () => Date;
}

export interface Catalog extends CatalogService {
  list(actor: Actor, query: Partial<api.RgdListQuery>): api.RgdList;
  /** A catalog entry by RGD name, without any RBAC check (for other modules, not for responses). */
  entry(name: string): CatalogEntry | undefined;
  /** Every catalog entry, sorted by name, without RBAC. */
  entries(): CatalogEntry[];
  /** The catalog entry whose instances are of `kind` (and `group`, when given); the first by name if several. */
  entryForKind(kind: string, group?: string): CatalogEntry | undefined;
  /** The entry's compiled JSON Schema (cached per revision); UNPROCESSABLE when its simple schema is invalid. */
  schemaOf(entry: CatalogEntry): JsonSchemaObject;
  visibleTo(actor: Actor, entry: CatalogEntry): boolean;
  /** Called after the index changed, synchronously, in the informer's event order. */
  onChange(listener: (action: CatalogChange, entry: CatalogEntry) => void): Disposable;
  /** Stops following the informer. */
  close(): void;
}

const defaultPageSize = 20;
/** Callers whose visible catalog is remembered at once (per sort order); the oldest is forgotten first. */
const MAX_CACHED_VIEWS = 2_000;
const MAX_FILTERS_PER_LIST = 32;

const hasFilter = (query: Partial<api.RgdListQuery>) =>
  [query.category, query.search, query.extendsKind, query.tags, query.status, query.project].some((v) => typeof v === 'string' && v.trim() !== '');
const maxPageSize = 500;

const wholeNumber = (value: unknown, fallback: number, max = Number.MAX_SAFE_INTEGER) => {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, max) : fallback;
};

/**
 * The catalog: an in-memory index of catalog RGDs kept current by the RGD informer (never re-read on a request),
 * filtered per caller by the visibility rule in visibility.ts.
 */
export function createCatalog(deps: CatalogDeps): Catalog {
  const { rgds, authz, logger } = deps;
  const index = new Map<string, IndexedEntry>();
  const schemas = createSchemaCache();
  const listeners = new Set<(action: CatalogChange, entry: CatalogEntry) => void>();
  const revisions = createRevisionLog(deps.now);

  // Derived views, rebuilt lazily after a change: one sort per (key, order) per change, not per request.
  let sorted = new Map<string, IndexedEntry[]>();
  let byKind: Map<string, CatalogEntry[]> | undefined;
  // What each caller sees, per sort order: visibility asks the policy engine per RGD and member project, so it
  // is worked out once per caller until the catalog or the policy changes, not on every request.
  const visibleSorted = new Map<string, IndexedEntry[]>();
  // The filter choices each caller is offered, serialised once, until the catalog or the policy changes.
  const filtersFor = new Map<string, ReturnType<CatalogService['filters']>>();
  const invalidate = () => {
    sorted = new Map();
    byKind = undefined;
    visibleSorted.clear();
    filtersFor.clear();
  };
  const authzSubscription = authz.onChange(() => {
    visibleSorted.clear();
    filtersFor.clear();
  });
  /** Whose catalog a caller sees: '' for every Server Admin (they all see the same), else its subjects. */
  const viewerOf = (actor: Actor) => (authz.isServerAdmin(actor) ? '' : actorKey(actor));
  const visibleSortedBy = (actor: Actor, sortBy: RgdSortBy, order: SortOrder, viewer = viewerOf(actor)): IndexedEntry[] => {
    if (viewer === '') return sortedBy(sortBy, order);
    const key = `${sortBy}:${order}\n${viewer}`;
    let items = visibleSorted.get(key);
    if (!items) {
      const visible = visibilityFor(authz, actor);
      items = sortedBy(sortBy, order).filter((item) => visible(item.entry));
      setBounded(visibleSorted, MAX_CACHED_VIEWS, key, items);
    }
    return items;
  };
  /**
   * The entries of a caller's visible list that pass a filter, kept with that list (which lives until the catalog
   * or the policy changes): a filtered page is a slice, not a walk over the whole catalog per request.
   */
  const filteredLists = new WeakMap<IndexedEntry[], Map<string, IndexedEntry[]>>();
  const filterKey = (query: Partial<api.RgdListQuery>) =>
    JSON.stringify([query.category, query.search, query.extendsKind, query.tags, query.status, query.project]);
  const matchingIn = (visible: IndexedEntry[], query: Partial<api.RgdListQuery>, key: string): IndexedEntry[] => {
    let byFilter = filteredLists.get(visible);
    if (!byFilter) filteredLists.set(visible, (byFilter = new Map()));
    let matching = byFilter.get(key);
    if (!matching) {
      matching = visible.filter(matcherFor(query));
      // Searches are open-ended: keep the most recent few dozen per list.
      setBounded(byFilter, MAX_FILTERS_PER_LIST, key, matching);
    }
    return matching;
  };
  /**
   * Pages as answered, each kept with the list it was cut from (replaced when the catalog or the policy changes)
   * until an instance comes, goes or moves (the counts in it): the catalog changes rarely and is read on every
   * visit to the catalog page.
   */
  const answered = createPageMemo<api.RgdList>();
  const wireParts = new WeakMap<IndexedEntry, [string, string]>();
  const rgdJson = (item: IndexedEntry, instances: number) => {
    let parts = wireParts.get(item);
    if (!parts) wireParts.set(item, (parts = rgdJsonParts(item.entry)));
    return `${parts[0]}${instances}${parts[1]}`;
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

  const emit = (action: CatalogChange, entry: CatalogEntry) => {
    revisions.record(action, entry);
    for (const listener of [...listeners]) {
      try {
        listener(action, entry);
      } catch (error) {
        logger?.error({ err: error, rgd: entry.name, action }, 'catalog change listener failed');
      }
    }
  };

  /** Applies one RGD object; returns the change it made to the catalog, if any. */
  const apply = (object: KubeObject): [CatalogChange, CatalogEntry] | undefined => {
    const entry = buildCatalogEntry(object);
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

  const remove = (name: string) => {
    index.delete(name);
    schemas.forget(name);
    invalidate();
  };

  const onEvent = (event: InformerEvent) => {
    let change: [CatalogChange, CatalogEntry] | undefined;
    if (event.type === 'DELETED') {
      const existing = index.get(event.object.metadata.name);
      if (existing) {
        remove(existing.entry.name);
        change = ['delete', existing.entry];
      }
    } else {
      change = apply(event.object);
    }
    if (change) emit(...change);
  };

  for (const object of rgds.list()) {
    const change = apply(object);
    if (change) revisions.record(...change);
  }
  const subscription = rgds.on(onEvent);

  const instanceCountsFor = (actor: Actor, names?: readonly string[]): ReadonlyMap<string, number> =>
    deps.instanceCounts?.(actor, names) ?? new Map<string, number>();

  const visibleSchema = (entry: CatalogEntry): JsonSchemaObject => {
    const result = schemas.compile(entry);
    // The detail page still opens for a broken RGD; the error says why no form can be built.
    return result.ok ? result.schema : { type: 'object', properties: {}, 'x-portico-schema-error': result.error };
  };

  /** Absent and invisible look the same, so a caller cannot probe for RGDs of other projects. */
  const visibleEntry = (actor: Actor, name: string): CatalogEntry => {
    const item = index.get(name);
    if (!item || !visibilityFor(authz, actor)(item.entry)) throw notFound('rgd', name);
    return item.entry;
  };

  const catalog: Catalog = {
    list(actor, query) {
      const page = wholeNumber(query.page, 1);
      const pageSize = wholeNumber(query.pageSize, defaultPageSize, maxPageSize);
      // The server validates these; library callers get the defaults for anything else.
      const sortBy: RgdSortBy = isRgdSortBy(query.sortBy) ? query.sortBy : 'name';
      const order: SortOrder = query.sortOrder === 'desc' ? 'desc' : 'asc';
      const first = (page - 1) * pageSize;
      const viewer = viewerOf(actor);
      const visible = visibleSortedBy(actor, sortBy, order, viewer);
      const filter = hasFilter(query) ? filterKey(query) : '';
      const source = filter ? matchingIn(visible, query, filter) : visible;
      const countsRevision = deps.instanceCounts ? deps.instanceCountsRevision?.() : 0;
      // A Server Admin's counts are everyone's; a member's are its own.
      const memoKey = `${sortBy}:${order}\u0000${filter}\u0000${page}:${pageSize}\u0000${viewer}`;
      const kept = countsRevision === undefined ? undefined : answered.get(memoKey, source, countsRevision);
      if (kept) return kept;

      const pageItems = source.slice(first, first + pageSize);
      const totalCount = source.length;
      const counts = pageItems.length > 0 ? instanceCountsFor(actor, pageItems.map((item) => item.entry.name)) : undefined;
      const pageCounts = pageItems.map((item) => counts?.get(item.entry.name) ?? 0);
      // The items as objects are made only if a library caller reads them; the server sends the text.
      let items: api.Rgd[] | undefined;
      const list: api.RgdList = {
        get items() {
          return (items ??= pageItems.map((item, i) => toRgd(item.entry, pageCounts[i]!)));
        },
        totalCount,
        page,
        pageSize,
      };
      // Each RGD's JSON is made once per version; only the caller's instance count is spliced in.
      const text = `{"items":[${pageItems.map((item, i) => rgdJson(item, pageCounts[i]!)).join(',')}],"totalCount":${totalCount},"page":${page},"pageSize":${pageSize}}`;
      withJsonText(list, text);
      return countsRevision === undefined ? list : answered.keep(memoKey, source, countsRevision, list, text.length);
    },

    get(actor, name) {
      const entry = visibleEntry(actor, name);
      const instances = instanceCountsFor(actor, [name]).get(name) ?? 0;
      return toRgdDetail(entry, instances, visibleSchema(entry));
    },

    formSchema(actor, name) {
      const entry = visibleEntry(actor, name);
      return {
        rgd: toRgd(entry, instanceCountsFor(actor, [name]).get(name) ?? 0),
        schema: formSchemaOf(entry, catalog.schemaOf(entry)),
        crdFound: entry.status === 'Active',
      };
    },

    graph(actor, name) {
      return graphOf(visibleEntry(actor, name));
    },

    revisions(actor, name) {
      return revisions.list(visibleEntry(actor, name).name);
    },

    count(actor) {
      return { count: visibleSortedBy(actor, 'name', 'asc').length };
    },

    filters(actor) {
      const key = viewerOf(actor);
      const cached = filtersFor.get(key);
      if (cached) return cached;
      // Keyed case-insensitively, like the filters they feed: "Web" and "web" are one choice (first by name wins).
      const categories = new Map<string, string>();
      const tags = new Map<string, string>();
      const projects = new Set<string>();
      for (const { entry } of visibleSortedBy(actor, 'name', 'asc', key)) {
        if (!categories.has(entry.category.toLowerCase())) categories.set(entry.category.toLowerCase(), entry.category);
        for (const tag of entry.tags) if (!tags.has(tag.toLowerCase())) tags.set(tag.toLowerCase(), tag);
        if (entry.project) projects.add(entry.project);
      }
      const sortedList = (values: Iterable<string>) => [...values].sort((a, b) => a.localeCompare(b, 'en'));
      const filters = deepFreeze(withLazyJsonText({ categories: sortedList(categories.values()), tags: sortedList(tags.values()), projects: sortedList(projects) }));
      return setBounded(filtersFor, MAX_CACHED_VIEWS, key, filters);
    },

    entry(name) {
      return index.get(name)?.entry;
    },

    entries() {
      return sortedBy('name', 'asc').map((i) => i.entry);
    },

    entryForKind(kind, group) {
      if (!byKind) {
        byKind = new Map();
        for (const { entry } of sortedBy('name', 'asc')) {
          const list = byKind.get(entry.kind) ?? [];
          list.push(entry);
          byKind.set(entry.kind, list);
        }
      }
      const candidates = byKind.get(kind) ?? [];
      return group === undefined ? candidates[0] : candidates.find((e) => e.group === group);
    },

    schemaOf(entry) {
      const result = schemas.compile(entry);
      if (!result.ok) throw unprocessable(`rgd "${entry.name}" has an invalid schema: ${result.error}`, { rgd: entry.name });
      return result.schema;
    },

    visibleTo(actor, entry) {
      return visibilityFor(authz, actor)(entry);
    },

    onChange(listener) {
      listeners.add(listener);
      return { close: () => void listeners.delete(listener) };
    },

    close() {
      subscription.close();
      authzSubscription.close();
      listeners.clear();
    },
  };
  return catalog;
}
