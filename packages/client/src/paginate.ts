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

/** The same for the §12.5 lists, whose envelope says `total` (every item, pages of `pageSize`). */
export async function* paginateTotal<T>(fetchPage: (page: number, pageSize: number) => Promise<{ items: T[]; total: number }>, pageSize = 500): AsyncGenerator<T, void, undefined> {
  for (let page = 1; ; page += 1) {
    const answer = await fetchPage(page, pageSize);
    yield* answer.items;
    if (answer.items.length < pageSize || page * pageSize >= answer.total) return;
  }
}
