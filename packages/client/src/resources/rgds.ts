import type { CountResponse, Rgd, RgdDetail, RgdFilters, RgdList, RgdSortBy } from '@portico/api';
import type { z } from 'zod';
import type { CallOptions } from '../options.js';
import { paginate } from '../paginate.js';
import type { Transport } from '../transport.js';

export interface RgdFilter {
  category?: string;
  /** Name, title and description; case-insensitive. */
  search?: string;
  extendsKind?: string;
  /** An RGD matches when it has every tag. */
  tags?: string | string[];
  status?: string;
  project?: string;
  page?: number;
  pageSize?: number;
  sortBy?: z.infer<typeof RgdSortBy>;
  sortOrder?: 'asc' | 'desc';
}

export interface RgdsApi {
  /** `GET /api/v1/rgds`: one page. */
  list(filter?: RgdFilter, opts?: CallOptions): Promise<RgdList>;
  /** `GET /api/v1/rgds/{name}`: with the values `schema` (JSON Schema). */
  get(name: string, opts?: CallOptions): Promise<RgdDetail>;
  /** `GET /api/v1/rgds/count`. */
  count(opts?: CallOptions): Promise<number>;
  /** `GET /api/v1/rgds/filters`. */
  filters(opts?: CallOptions): Promise<RgdFilters>;
  /** Every matching RGD, page after page (`pageSize` defaults to 100 here). */
  all(filter?: RgdFilter, opts?: CallOptions): AsyncGenerator<Rgd, void, undefined>;
}

export const rgdsApi = (call: Transport): RgdsApi => {
  const list = (filter: RgdFilter = {}, opts?: CallOptions) => call<RgdList>('listRgds', { query: { ...filter } }, opts);
  return {
    list,
    get: (name, opts) => call<RgdDetail>('getRgd', { params: { name } }, opts),
    count: async (opts) => (await call<CountResponse>('countRgds', {}, opts)).count,
    filters: (opts) => call<RgdFilters>('rgdFilters', {}, opts),
    all: (filter = {}, opts) => paginate((page, pageSize, o) => list({ ...filter, page, pageSize }, o), filter, opts),
  };
};
