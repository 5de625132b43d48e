import type { CallOptions } from './options.js';

export interface Page<T> {
  items: T[];
  totalCount: number;
  page: number;
  pageSize: number;
}

/**
 * Yields every item of a paged list, fetching the next page only when the caller has consumed the current
 * one. Stops on an empty page or once `page × pageSize` reaches `totalCount` (the server may clamp pageSize,
 * so its answer, not the request, decides).
 */
export async function* paginate<T>(
  fetchPage: (page: number, pageSize: number, opts: CallOptions) => Promise<Page<T>>,
  first: { page?: number; pageSize?: number },
  opts: CallOptions = {},
): AsyncGenerator<T, void, undefined> {
  let page = first.page ?? 1;
  const pageSize = first.pageSize ?? 100;
  for (;;) {
    const res = await fetchPage(page, pageSize, opts);
    yield* res.items;
    if (res.items.length === 0 || res.page * res.pageSize >= res.totalCount) return;
    page = res.page + 1;
  }
}
