import { routeHandlers } from './types.js';

/** §3 catalog. */
export const rgdsHandlers = routeHandlers({
  listRgds: ({ portico, actor, query }) => portico.catalog.list(actor, query),
  countRgds: ({ portico, actor }) => portico.catalog.count(actor),
  rgdFilters: ({ portico, actor }) => portico.catalog.filters(actor),
  getRgd: ({ portico, actor, params }) => portico.catalog.get(actor, params.name),
  // §11 deploy forms and resource graphs
  rgdSchema: ({ portico, actor, params }) => portico.catalog.formSchema(actor, params.name),
  rgdGraph: ({ portico, actor, params }) => portico.catalog.graph(actor, params.name),
  rgdRevisions: ({ portico, actor, params }) => portico.catalog.revisions(actor, params.name),
  rgdRevision: ({ portico, actor, params }) => portico.catalog.revision(actor, params.name, params.n),
  rgdRevisionDiff: ({ portico, actor, params }) => portico.catalog.revisionDiff(actor, params.name, params.a, params.b),
});
