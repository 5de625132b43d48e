import type * as api from '@portico/api';
import { actorKey, type Actor } from '../actor.js';
import { setBounded } from '../bounded-map.js';
import { deepFreeze } from '../freeze.js';
import { withLazyJsonText } from '../json-text.js';
import type { Authorizer, CatalogService } from '../types.js';
import { matcherFor, type IndexedEntry, type RgdSortBy, type SortOrder } from './query.js';
import { visibilityFor } from './visibility.js';

/** Callers whose visible catalog is remembered at once (per sort order); the oldest is forgotten first. */
const MAX_CACHED_VIEWS = 2_000;
const MAX_FILTERS_PER_LIST = 32;

/** What each caller sees of the catalog, worked out once per caller until the catalog or the policy changes. */
export interface CallerViews {
  /** Whose catalog a caller sees: '' for every Server Admin (they all see the same), else its subjects. */
  viewerOf(actor: Actor): string;
  /** The entries `actor` may see, in one order. */
  visibleSortedBy(actor: Actor, sortBy: RgdSortBy, order: SortOrder, viewer?: string): IndexedEntry[];
  /** The entries of a visible list (from visibleSortedBy) that pass the query's filters, `key` naming them. */
  matchingIn(visible: IndexedEntry[], query: Partial<api.RgdListQuery>, key: string): IndexedEntry[];
  /** The filter choices offered to `actor`, from the entries it sees. */
  filters(actor: Actor): ReturnType<CatalogService['filters']>;
  /** The catalog changed. */
  clear(): void;
  close(): void;
}

export function createCallerViews(authz: Authorizer, sortedBy: (sortBy: RgdSortBy, order: SortOrder) => IndexedEntry[]): CallerViews {
  // What each caller sees, per sort order: visibility asks the policy engine per RGD and member project, so it
  // is worked out once per caller until the catalog or the policy changes, not on every request.
  const visibleSorted = new Map<string, IndexedEntry[]>();
  // The filter choices each caller is offered, serialised once, until the catalog or the policy changes.
  const filtersFor = new Map<string, ReturnType<CatalogService['filters']>>();
  /**
   * The entries of a caller's visible list that pass a filter, kept with that list (which lives until the catalog
   * or the policy changes): a filtered page is a slice, not a walk over the whole catalog per request.
   */
  const filteredLists = new WeakMap<IndexedEntry[], Map<string, IndexedEntry[]>>();
  const clear = () => {
    visibleSorted.clear();
    filtersFor.clear();
  };
  const authzSubscription = authz.onChange(clear);

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

  return {
    viewerOf,
    visibleSortedBy,

    matchingIn(visible, query, key) {
      let byFilter = filteredLists.get(visible);
      if (!byFilter) filteredLists.set(visible, (byFilter = new Map()));
      let matching = byFilter.get(key);
      if (!matching) {
        matching = visible.filter(matcherFor(query));
        // Searches are open-ended: keep the most recent few dozen per list.
        setBounded(byFilter, MAX_FILTERS_PER_LIST, key, matching);
      }
      return matching;
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

    clear,
    close: () => authzSubscription.close(),
  };
}
