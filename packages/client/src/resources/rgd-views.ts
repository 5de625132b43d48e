import type { GraphRevisionDetail, GraphRevisionList, RevisionDiff, RgdGraph, RgdSchemaResponse } from '@portico/api';
import type { CallOptions } from '../options.js';
import type { Transport } from '../transport.js';

/** What a deploy form, a resource graph view and a revisions tab read about one RGD (contract §11.1). */
export interface RgdViewsApi {
  /** `GET /api/v1/rgds/{name}/schema`: the deploy form; fields in `propertyOrder`. */
  schema(name: string, opts?: CallOptions): Promise<RgdSchemaResponse>;
  /** `GET /api/v1/rgds/{name}/graph`: resources and the references between them. */
  graph(name: string, opts?: CallOptions): Promise<RgdGraph>;
  /** `GET /api/v1/rgds/{name}/revisions`: the recorded revisions of the RGD's spec, newest first. */
  revisions(name: string, opts?: CallOptions): Promise<GraphRevisionList>;
  /** `GET /api/v1/rgds/{name}/revisions/{n}`: one revision with the spec as it was (`snapshot`). */
  revision(name: string, revisionNumber: number, opts?: CallOptions): Promise<GraphRevisionDetail>;
  /** `GET /api/v1/rgds/{name}/revisions/{a}/diff/{b}`: what changed; `rev1` is the lower number whatever the order. */
  diff(name: string, a: number, b: number, opts?: CallOptions): Promise<RevisionDiff>;
}

export const rgdViewsApi = (call: Transport): RgdViewsApi => ({
  schema: (name, opts) => call('rgdSchema', { params: { name } }, opts),
  graph: (name, opts) => call('rgdGraph', { params: { name } }, opts),
  revisions: (name, opts) => call('rgdRevisions', { params: { name } }, opts),
  revision: (name, n, opts) => call('rgdRevision', { params: { name, n: String(n) } }, opts),
  diff: (name, a, b, opts) => call('rgdRevisionDiff', { params: { name, a: String(a), b: String(b) } }, opts),
});
