import type * as api from '@portico/api';
import { setBounded } from '../bounded-map.js';

export type InstanceSortBy = api.InstanceListQuery['sortBy'];

/** What a view holds: the items of some projects that pass the filters an index can serve, in one sort order. */
export interface ViewSpec {
  /** Sorted project names, or undefined for every project (unlabelled instances included). */
  projects?: readonly string[];
  namespace?: string;
  kind?: string;
  rgdName?: string;
  health?: api.Instance['health'];
  sortBy: InstanceSortBy;
}

/** The part of an indexed instance a view reads. */
export interface Sortable {
  id: string;
  project: string;
  instance: Pick<api.Instance, 'namespace' | 'kind' | 'rgdName' | 'health'>;
  sortKeys: Record<InstanceSortBy, string | number>;
}

export interface SortedView<T extends Sortable> {
  /** Ascending by the sort key, then by id; a descending page reads it from the end. */
  readonly items: readonly T[];
  /** What the view was built for (`viewKey` of its spec). */
  readonly key: string;
  /** Moves whenever an item enters, leaves or changes, so an answer read from it can be kept until then. */
  readonly version: number;
}

const compareValues = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

/** Views kept at once; the least recently read goes first (each costs one pointer per item it holds). */
const MAX_VIEWS = 128;

interface View<T extends Sortable> extends SortedView<T> {
  items: T[];
  version: number;
  spec: ViewSpec;
  projects?: ReadonlySet<string>;
  compare: (a: T, b: T) => number;
}

const viewKey = (spec: ViewSpec) =>
  [spec.sortBy, spec.projects?.join(',') ?? '*', spec.namespace ?? '', spec.kind ?? '', spec.rgdName ?? '', spec.health ?? ''].join('\u0000');

/**
 * Sorted views over the instance index, so a list page is read by position, not sorted per request: built on
 * first use from the items given, then kept current on every index change by binary-search insertion and
 * removal (O(log n) to find, a memmove to splice), or in place when the item keeps its position. Bounded in
 * number; an evicted view is rebuilt when asked again.
 */
export function createSortedViews<T extends Sortable>() {
  const views = new Map<string, View<T>>();

  const accepts = (view: View<T>, item: T) => {
    const { spec } = view;
    const i = item.instance;
    return (
      (view.projects === undefined || view.projects.has(item.project)) &&
      (spec.namespace === undefined || i.namespace === spec.namespace) &&
      (spec.kind === undefined || i.kind === spec.kind) &&
      (spec.rgdName === undefined || i.rgdName === spec.rgdName) &&
      (spec.health === undefined || i.health === spec.health)
    );
  };

  /** First position whose item sorts at or after `item`. */
  const lowerBound = (view: View<T>, item: T) => {
    let lo = 0;
    let hi = view.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (view.compare(view.items[mid], item) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };

  const comparatorFor = (sortBy: InstanceSortBy) => (a: T, b: T) => compareValues(a.sortKeys[sortBy], b.sortKeys[sortBy]) || compareValues(a.id, b.id);

  return {
    /** The view for `spec`, built from `source` when it does not exist yet. */
    view(spec: ViewSpec, source: () => Iterable<T>): SortedView<T> {
      const key = viewKey(spec);
      let view = views.get(key);
      if (view) {
        // Most recently used last: Map keeps insertion order, so the first key is the one to evict.
        views.delete(key);
        views.set(key, view);
        return view;
      }
      view = { key, version: 0, spec, items: [], projects: spec.projects && new Set(spec.projects), compare: comparatorFor(spec.sortBy) };
      for (const item of source()) if (accepts(view, item)) view.items.push(item);
      view.items.sort(view.compare);
      setBounded(views, MAX_VIEWS, key, view);
      return view;
    },

    /**
     * An item changed: `previous` leaves every view that held it, `current` enters every view that accepts it. A
     * view that holds it and keeps it at the same place in its order (a status change under a name order, the
     * common case) gets the new item where the old one stood: a binary search instead of two splices that each
     * move every item after it, which at tens of thousands of instances is most of a change's cost.
     */
    update(previous: T | undefined, current: T | undefined) {
      for (const view of views.values()) {
        if (previous && current && view.compare(previous, current) === 0 && accepts(view, previous) && accepts(view, current)) {
          const at = lowerBound(view, previous);
          if (view.items[at] === previous) {
            view.items[at] = current;
            view.version++;
            continue;
          }
        }
        if (previous && accepts(view, previous)) {
          const at = lowerBound(view, previous);
          if (view.items[at] === previous) {
            view.items.splice(at, 1);
            view.version++;
          }
        }
        if (current && accepts(view, current)) {
          view.items.splice(lowerBound(view, current), 0, current);
          view.version++;
        }
      }
    },

    clear() {
      views.clear();
    },
  };
}
