import type * as api from '@portico/api';
import { comparatorFor, indexEntry, matcherFor, toRgd, type Actor, type CatalogEntry, type IndexedEntry } from '@portico/core';
import type { ViewDetailQuery, ViewFilter } from '@portico/api/enterprise';
import { slugOf } from '../categories/resource.js';

/** What a view reads from the catalog: entries, the caller's visibility and its instance counts. */
export interface ViewCatalog {
  entries(): CatalogEntry[];
  visibleTo(actor: Actor, entry: CatalogEntry): boolean;
  instanceCounts(actor: Actor): ReadonlyMap<string, number>;
}

/** The catalog's own filters (search, extendsKind, every tag) plus a view's any-of categories and projects. */
function viewMatcher(filter: ViewFilter): (item: IndexedEntry) => boolean {
  const base = matcherFor({ search: filter.search, extendsKind: filter.extendsKind, tags: filter.tags.join(',') });
  const categories = new Set(filter.categories.map((c) => c.toLowerCase()));
  const projects = new Set(filter.projects);
  return (item) =>
    base(item) &&
    (categories.size === 0 || categories.has(item.categoryLower) || categories.has(slugOf(item.entry.category))) &&
    (projects.size === 0 || (item.entry.project !== undefined && projects.has(item.entry.project)));
}

/** The visible RGDs a view selects, sorted; the caller's RBAC decides, exactly as in the catalog list. */
export function selectRgds(catalog: ViewCatalog, actor: Actor, filter: ViewFilter): IndexedEntry[] {
  const matches = viewMatcher(filter);
  const selected: IndexedEntry[] = [];
  for (const entry of catalog.entries()) {
    if (!catalog.visibleTo(actor, entry)) continue;
    const item = indexEntry(entry);
    if (matches(item)) selected.push(item);
  }
  return selected;
}

/** One page of the selection in the list envelope of §3. */
export function rgdPage(catalog: ViewCatalog, actor: Actor, selected: IndexedEntry[], query: ViewDetailQuery): api.RgdList {
  const sorted = selected.sort(comparatorFor(query.sortBy, query.sortOrder));
  const first = (query.page - 1) * query.pageSize;
  const page = sorted.slice(first, first + query.pageSize);
  const counts: ReadonlyMap<string, number> = page.length > 0 ? catalog.instanceCounts(actor) : new Map();
  return { items: page.map((i) => toRgd(i.entry, counts.get(i.entry.name) ?? 0)), totalCount: sorted.length, page: query.page, pageSize: query.pageSize };
}
