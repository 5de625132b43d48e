import type { RgdGraph, RgdRevisionList, RgdSchemaResponse } from '@portico/api';
import type { CallOptions } from '../options.js';
import type { Transport } from '../transport.js';

/** What a deploy form and a resource graph view read about one RGD (contract §11). */
export interface RgdViewsApi {
  /** `GET /api/v1/rgds/{name}/schema`: the deploy form; fields in `propertyOrder`. */
  schema(name: string, opts?: CallOptions): Promise<RgdSchemaResponse>;
  /** `GET /api/v1/rgds/{name}/graph`: resources and the references between them. */
  graph(name: string, opts?: CallOptions): Promise<RgdGraph>;
  /** `GET /api/v1/rgds/{name}/revisions`: changes the server has seen, newest first. */
  revisions(name: string, opts?: CallOptions): Promise<RgdRevisionList>;
}

export const rgdViewsApi = (call: Transport): RgdViewsApi => ({
  schema: (name, opts) => call('rgdSchema', { params: { name } }, opts),
  graph: (name, opts) => call('rgdGraph', { params: { name } }, opts),
  revisions: (name, opts) => call('rgdRevisions', { params: { name } }, opts),
});
