import type { CountResponse, Rgd, RgdDetail, RgdFilters, RgdList, RouteQuery } from '@portico/api';
import type { CallOptions } from '../options.js';
import { paginate } from '../paginate.js';
import type { Transport } from '../transport.js';

/** The list query as parsed values; `tags` may also be a list (an RGD matches when it has every tag). */
export type RgdFilter = Omit<Partial<RouteQuery<'listRgds'>>, 'tags'> & { tags?: string | string[] };

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
  const list = (filter: RgdFilter = {}, opts?: CallOptions) => call('listRgds', { query: { ...filter } }, opts);
  return {
    list,
    get: (name, opts) => call('getRgd', { params: { name } }, opts),
    count: async (opts) => (await call('countRgds', {}, opts)).count,
    filters: (opts) => call('rgdFilters', {}, opts),
    all: (filter = {}, opts) => paginate((page, pageSize, o) => list({ ...filter, page, pageSize }, o), filter, opts),
  };
};
