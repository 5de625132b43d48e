import { setBounded } from './bounded-map.js';

/**
 * List pages as they were answered, kept until what they were cut from changes. Between changes every caller
 * asking for the same page of the same list gets the same frozen answer, whose JSON (and, when large, its bytes)
 * was made once; after a change the next request builds it again. `source` is the object the page was read
 * from (a sorted view, a caller's visible list) and `version` whatever else it depends on; both must be the
 * same for a hit, so a rebuilt source never serves an old page. Bounded in entries and in page size, so the
 * memory it holds stays small whatever callers ask for.
 */
export interface PageMemo<T extends object> {
  get(key: string, source: object, version: number): T | undefined;
  /** Keeps `page` (frozen, shallowly) when its text is small enough; answers it. */
  keep(key: string, source: object, version: number, page: T, textLength: number): T;
}

export function createPageMemo<T extends object>(maxPages = 128, maxTextLength = 64 * 1024): PageMemo<T> {
  const pages = new Map<string, { source: object; version: number; page: T }>();
  return {
    get(key, source, version) {
      const kept = pages.get(key);
      return kept && kept.source === source && kept.version === version ? kept.page : undefined;
    },
    keep(key, source, version, page, textLength) {
      if (textLength <= maxTextLength) setBounded(pages, maxPages, key, { source, version, page: Object.freeze(page) });
      return page;
    },
  };
}
