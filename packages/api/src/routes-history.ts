import { z } from 'zod';
import { ClusterInstanceParams, NamespacedInstanceParams } from './instances.js';
import {
  HistoryExportQuery, InstanceChildren, InstanceEventList, InstanceHistory, InstanceTimeline, TimelineQuery,
} from './instance-history.js';
import { r } from './route-def.js';
import { GraphRevisionDetail, GraphRevisionList, RevisionDiff, RevisionDiffParams, RevisionParams, RgdGraph, RgdSchemaResponse } from './rgd-views.js';

const RgdParams = z.object({ name: z.string().min(1).max(253) });

/** §11.1: what a deploy form, a resource graph and a revisions tab read about one RGD. */
export const catalogViewRoutes = [
  r({ id: 'rgdSchema', method: 'GET', path: '/api/v1/rgds/{name}/schema', auth: 'user', tag: 'rgds', summary: 'The deploy form of an RGD (FormSchema with propertyOrder)', params: RgdParams, status: 200, response: RgdSchemaResponse }),
  r({ id: 'rgdGraph', method: 'GET', path: '/api/v1/rgds/{name}/graph', auth: 'user', tag: 'rgds', summary: 'The RGD\'s resources and the ${…} references between them', params: RgdParams, status: 200, response: RgdGraph }),
  r({ id: 'rgdRevisions', method: 'GET', path: '/api/v1/rgds/{name}/revisions', auth: 'user', tag: 'rgds', summary: 'The recorded revisions of the RGD\'s spec, newest first (at most 50)', params: RgdParams, status: 200, response: GraphRevisionList }),
  r({ id: 'rgdRevision', method: 'GET', path: '/api/v1/rgds/{name}/revisions/{n}', auth: 'user', tag: 'rgds', summary: 'One revision with its snapshot of the RGD\'s spec', params: RevisionParams, status: 200, response: GraphRevisionDetail }),
  r({ id: 'rgdRevisionDiff', method: 'GET', path: '/api/v1/rgds/{name}/revisions/{a}/diff/{b}', auth: 'user', tag: 'rgds', summary: 'What changed between two revisions (the lower number is rev1 whatever the order asked)', params: RevisionDiffParams, status: 200, response: RevisionDiff }),
] as const;

/** §11.2 on every instance path family: namespaced, cluster-scoped under `_`, and cluster-scoped without it. */
export const instanceHistoryRoutes = [
  r({ id: 'namespacedInstanceEvents', method: 'GET', path: '/api/v1/namespaces/{namespace}/instances/{kind}/{name}/events', auth: 'user', tag: 'instances', summary: 'Kubernetes Events of the instance and its child resources, newest first', params: NamespacedInstanceParams, status: 200, response: InstanceEventList }),
  r({ id: 'namespacedInstanceTimeline', method: 'GET', path: '/api/v1/namespaces/{namespace}/instances/{kind}/{name}/timeline', auth: 'user', tag: 'instances', summary: 'The instance\'s timeline, oldest first', params: NamespacedInstanceParams, query: TimelineQuery, status: 200, response: InstanceTimeline }),
  r({ id: 'namespacedInstanceChildren', method: 'GET', path: '/api/v1/namespaces/{namespace}/instances/{kind}/{name}/children', auth: 'user', tag: 'instances', summary: 'The resources kro manages for the instance, grouped by resource id, with health', params: NamespacedInstanceParams, status: 200, response: InstanceChildren }),
  r({ id: 'namespacedInstanceHistory', method: 'GET', path: '/api/v1/namespaces/{namespace}/instances/{kind}/{name}/history', auth: 'user', tag: 'instances', summary: 'The instance\'s deployment history (kept 90 days after deletion)', params: NamespacedInstanceParams, status: 200, response: InstanceHistory }),
  r({ id: 'namespacedInstanceHistoryExport', method: 'GET', path: '/api/v1/namespaces/{namespace}/instances/{kind}/{name}/history/export', auth: 'user', tag: 'instances', summary: 'The deployment history as a JSON or CSV download', params: NamespacedInstanceParams, query: HistoryExportQuery, status: 200 }),
  r({ id: 'clusterInstanceEvents', method: 'GET', path: '/api/v1/instances/_/{kind}/{name}/events', auth: 'user', tag: 'instances', summary: 'Kubernetes Events of a cluster-scoped instance and its child resources, newest first', params: ClusterInstanceParams, status: 200, response: InstanceEventList }),
  r({ id: 'clusterInstanceTimeline', method: 'GET', path: '/api/v1/instances/_/{kind}/{name}/timeline', auth: 'user', tag: 'instances', summary: 'A cluster-scoped instance\'s timeline, oldest first', params: ClusterInstanceParams, query: TimelineQuery, status: 200, response: InstanceTimeline }),
  r({ id: 'clusterInstanceChildren', method: 'GET', path: '/api/v1/instances/_/{kind}/{name}/children', auth: 'user', tag: 'instances', summary: 'The resources kro manages for a cluster-scoped instance, grouped by resource id', params: ClusterInstanceParams, status: 200, response: InstanceChildren }),
  r({ id: 'clusterInstanceHistory', method: 'GET', path: '/api/v1/instances/_/{kind}/{name}/history', auth: 'user', tag: 'instances', summary: 'A cluster-scoped instance\'s deployment history (kept 90 days after deletion)', params: ClusterInstanceParams, status: 200, response: InstanceHistory }),
  r({ id: 'clusterInstanceHistoryExport', method: 'GET', path: '/api/v1/instances/_/{kind}/{name}/history/export', auth: 'user', tag: 'instances', summary: 'A cluster-scoped instance\'s deployment history as a JSON or CSV download', params: ClusterInstanceParams, query: HistoryExportQuery, status: 200 }),
  r({ id: 'clusterInstanceEventsAlias', method: 'GET', path: '/api/v1/instances/{kind}/{name}/events', auth: 'user', tag: 'instances', summary: 'Kubernetes Events of a cluster-scoped instance (alias of the `_` path)', params: ClusterInstanceParams, status: 200, response: InstanceEventList }),
  r({ id: 'clusterInstanceTimelineAlias', method: 'GET', path: '/api/v1/instances/{kind}/{name}/timeline', auth: 'user', tag: 'instances', summary: 'A cluster-scoped instance\'s timeline (alias of the `_` path)', params: ClusterInstanceParams, query: TimelineQuery, status: 200, response: InstanceTimeline }),
  r({ id: 'clusterInstanceChildrenAlias', method: 'GET', path: '/api/v1/instances/{kind}/{name}/children', auth: 'user', tag: 'instances', summary: 'The resources of a cluster-scoped instance (alias of the `_` path)', params: ClusterInstanceParams, status: 200, response: InstanceChildren }),
  r({ id: 'clusterInstanceHistoryAlias', method: 'GET', path: '/api/v1/instances/{kind}/{name}/history', auth: 'user', tag: 'instances', summary: 'A cluster-scoped instance\'s deployment history (alias of the `_` path)', params: ClusterInstanceParams, status: 200, response: InstanceHistory }),
  r({ id: 'clusterInstanceHistoryExportAlias', method: 'GET', path: '/api/v1/instances/{kind}/{name}/history/export', auth: 'user', tag: 'instances', summary: 'A cluster-scoped instance\'s deployment history as a download (alias of the `_` path)', params: ClusterInstanceParams, query: HistoryExportQuery, status: 200 }),
] as const;
