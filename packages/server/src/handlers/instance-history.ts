import { Readable } from 'node:stream';
import type { InstanceKey } from '@portico/core';
import type { Reply, RouteParams } from './types.js';
import { routeHandlers } from './types.js';

/** `_` in a path stands for "no namespace" (cluster-scoped kinds); the `_`-less aliases have no namespace either. */
const keyOf = (params: RouteParams<'namespacedInstanceHistory' | 'clusterInstanceHistory'>): InstanceKey => ({
  namespace: 'namespace' in params ? params.namespace : '',
  kind: params.kind,
  name: params.name,
});

/** A download: the name a browser saves it under, and the body as it was made. */
const download = (reply: Reply, file: { filename: string; contentType: string; text: string }) => {
  reply.setHeader('Content-Type', file.contentType);
  reply.setHeader('Content-Disposition', `attachment; filename="${file.filename.replace(/["\\\r\n]/g, '_')}"`);
  return Readable.from([file.text]);
};

/** §11.2 on the three instance path families: one domain call each. */
export const instanceHistoryHandlers = routeHandlers({
  namespacedInstanceEvents: ({ portico, actor, params }) => portico.instances.events(actor, keyOf(params)),
  namespacedInstanceTimeline: ({ portico, actor, params, query }) => portico.instances.timeline(actor, keyOf(params), query.source),
  namespacedInstanceChildren: ({ portico, actor, params }) => portico.instances.children(actor, keyOf(params)),
  namespacedInstanceHistory: ({ portico, actor, params }) => portico.instances.history(actor, keyOf(params)),
  namespacedInstanceHistoryExport: async ({ portico, actor, params, query, reply }) => download(reply, await portico.instances.historyExport(actor, keyOf(params), query.format)),
  clusterInstanceEvents: ({ portico, actor, params }) => portico.instances.events(actor, keyOf(params)),
  clusterInstanceTimeline: ({ portico, actor, params, query }) => portico.instances.timeline(actor, keyOf(params), query.source),
  clusterInstanceChildren: ({ portico, actor, params }) => portico.instances.children(actor, keyOf(params)),
  clusterInstanceHistory: ({ portico, actor, params }) => portico.instances.history(actor, keyOf(params)),
  clusterInstanceHistoryExport: async ({ portico, actor, params, query, reply }) => download(reply, await portico.instances.historyExport(actor, keyOf(params), query.format)),
  clusterInstanceEventsAlias: ({ portico, actor, params }) => portico.instances.events(actor, keyOf(params)),
  clusterInstanceTimelineAlias: ({ portico, actor, params, query }) => portico.instances.timeline(actor, keyOf(params), query.source),
  clusterInstanceChildrenAlias: ({ portico, actor, params }) => portico.instances.children(actor, keyOf(params)),
  clusterInstanceHistoryAlias: ({ portico, actor, params }) => portico.instances.history(actor, keyOf(params)),
  clusterInstanceHistoryExportAlias: async ({ portico, actor, params, query, reply }) => download(reply, await portico.instances.historyExport(actor, keyOf(params), query.format)),
});
