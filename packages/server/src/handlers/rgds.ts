import type * as api from '@portico/api';
import { handler } from './types.js';

/** §3 catalog. */
export const rgdsHandlers = {
  listRgds: handler<{ query: api.RgdListQuery }>(({ portico, actor, query }) => portico.catalog.list(actor, query)),
  countRgds: handler(({ portico, actor }) => portico.catalog.count(actor)),
  rgdFilters: handler(({ portico, actor }) => portico.catalog.filters(actor)),
  getRgd: handler<{ params: { name: string } }>(({ portico, actor, params }) => portico.catalog.get(actor, params.name)),
};
