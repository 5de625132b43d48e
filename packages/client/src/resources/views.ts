import type { CreateViewRequest, UpdateViewRequest, View, ViewDetail, ViewDetailQuery, ViewList } from '@portico/api/enterprise';
import type { z } from 'zod';
import type { CallOptions } from '../options.js';
import type { Transport } from '../transport.js';

export interface ViewPage {
  page?: number;
  pageSize?: number;
  sortBy?: z.infer<typeof ViewDetailQuery>['sortBy'];
  sortOrder?: 'asc' | 'desc';
}
export type CreateViewInput = z.input<typeof CreateViewRequest>;

/** §12.4 saved catalog views (Enterprise): shared ones and the caller's own. */
export interface ViewsApi {
  list(opts?: CallOptions): Promise<View[]>;
  /** The view and one page of the RGDs it selects, as the caller may see them. */
  get(slug: string, page?: ViewPage, opts?: CallOptions): Promise<ViewDetail>;
  create(input: CreateViewInput, opts?: CallOptions): Promise<View>;
  update(slug: string, input: z.input<typeof UpdateViewRequest>, opts?: CallOptions): Promise<View>;
  delete(slug: string, opts?: CallOptions): Promise<void>;
}

export const viewsApi = (call: Transport): ViewsApi => ({
  list: async (opts) => (await call('listViews', {}, opts)).items,
  get: (slug, page = {}, opts) => call('getView', { params: { slug }, query: { ...page } }, opts),
  create: (input, opts) => call('createView', { body: input }, opts),
  update: (slug, input, opts) => call('updateView', { params: { slug }, body: input }, opts),
  delete: async (slug, opts) => void (await call('deleteView', { params: { slug } }, opts)),
});
