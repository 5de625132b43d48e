import type * as api from '@portico/api';
import type { Actor } from '../actor.js';
import { withJsonText } from '../json-text.js';
import { createPageMemo } from '../page-memo.js';
import type { CallerViews } from './catalog-views.js';
import { isRgdSortBy, type IndexedEntry, type RgdSortBy, type SortOrder } from './query.js';
import { rgdJsonParts, toRgd } from './wire.js';

const defaultPageSize = 20;
const maxPageSize = 500;

const filterValues = (query: Partial<api.RgdListQuery>) =>
  [query.category, query.search, query.extendsKind, query.tags, query.status, query.project, query.labelSelector];

const hasFilter = (query: Partial<api.RgdListQuery>) => filterValues(query).some((v) => typeof v === 'string' && v.trim() !== '');

const filterKey = (query: Partial<api.RgdListQuery>) => JSON.stringify(filterValues(query));

const wholeNumber = (value: unknown, fallback: number, max = Number.MAX_SAFE_INTEGER) => {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, max) : fallback;
};

/** Read on every list, not once: whoever made the catalog may supply them later. */
interface CatalogListDeps {
  /** Instances per RGD name that `actor` may see; undefined when the catalog has no instance counts. */
  instanceCounts?: (actor: Actor, names?: readonly string[]) => ReadonlyMap<string, number>;
  /** Moves whenever `instanceCounts` may answer differently (see CatalogDeps). */
  instanceCountsRevision?: () => number;
}

/** A page of the catalog list, its JSON text made from each RGD's (kept per version) and the caller's counts. */
export function createCatalogList(views: CallerViews, deps: CatalogListDeps) {
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

  return (actor: Actor, query: Partial<api.RgdListQuery>): api.RgdList => {
    const page = wholeNumber(query.page, 1);
    const pageSize = wholeNumber(query.pageSize, defaultPageSize, maxPageSize);
    // The server validates these; library callers get the defaults for anything else.
    const sortBy: RgdSortBy = isRgdSortBy(query.sortBy) ? query.sortBy : 'name';
    const order: SortOrder = query.sortOrder === 'desc' ? 'desc' : 'asc';
    const first = (page - 1) * pageSize;
    const viewer = views.viewerOf(actor);
    const visible = views.visibleSortedBy(actor, sortBy, order, viewer);
    const filter = hasFilter(query) ? filterKey(query) : '';
    const source = filter ? views.matchingIn(visible, query, filter) : visible;
    const countsRevision = deps.instanceCounts ? deps.instanceCountsRevision?.() : 0;
    // A Server Admin's counts are everyone's; a member's are its own.
    const memoKey = `${sortBy}:${order}\u0000${filter}\u0000${page}:${pageSize}\u0000${viewer}`;
    const kept = countsRevision === undefined ? undefined : answered.get(memoKey, source, countsRevision);
    if (kept) return kept;

    const pageItems = source.slice(first, first + pageSize);
    const totalCount = source.length;
    const counts = pageItems.length > 0 ? deps.instanceCounts?.(actor, pageItems.map((item) => item.entry.name)) : undefined;
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
  };
}
