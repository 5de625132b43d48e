import type * as api from '@portico/api';
import type { CreateInstanceInput, InstanceKey } from '@portico/core';
import type { RouteParams } from './types.js';
import { routeHandlers } from './types.js';

/** `_` in a path stands for "no namespace" (cluster-scoped kinds). */
const clusterScoped = '';

/** Both body forms accept `project`/`projectId` and `values`/`spec`; the schemas guarantee a project. */
const common = (body: api.CreateInstanceFormA | api.CreateInstanceFormB) => ({
  name: body.name,
  project: body.project ?? body.projectId ?? '',
  values: body.values ?? body.spec ?? {},
  deploymentMode: body.deploymentMode,
  // §13: the repository of a Git-mode create, and where in it.
  repositoryId: body.repositoryId,
  gitBranch: body.gitBranch,
  gitPath: body.gitPath,
});

/** Create by kind: the kind (and namespace, unless `_`) from the path. */
const formA = (params: RouteParams<'createNamespacedInstance' | 'createClusterInstance' | 'createClusterInstanceAlias'>, body: api.CreateInstanceFormA): CreateInstanceInput => ({
  ...common(body),
  namespace: 'namespace' in params ? params.namespace : clusterScoped,
  kind: params.kind,
});

/** Create by RGD name: everything in the flat body; the kind follows from `rgdName`. */
const formB = (body: api.CreateInstanceFormB): CreateInstanceInput => ({
  ...common(body),
  namespace: body.namespace ?? clusterScoped,
  kind: undefined,
  rgdName: body.rgdName,
});

const keyOf = (params: RouteParams<'getNamespacedInstance' | 'getClusterInstance'>): InstanceKey => ({
  namespace: 'namespace' in params ? params.namespace : clusterScoped,
  kind: params.kind,
  name: params.name,
});

/** §6 instances: three creation forms onto one domain call; get/patch/delete by {namespace, kind, name}. (§11.2 is instance-history.ts.) */
export const instancesHandlers = routeHandlers({
  listInstances: ({ portico, actor, query }) => portico.instances.list(actor, query),
  countInstances: ({ portico, actor }) => portico.instances.count(actor),
  createInstance: ({ portico, actor, body }) => portico.instances.create(actor, formB(body)),
  createNamespacedInstance: ({ portico, actor, params, body }) =>
    portico.instances.create(actor, formA(params, body)),
  createClusterInstance: ({ portico, actor, params, body }) =>
    portico.instances.create(actor, formA(params, body)),
  getNamespacedInstance: ({ portico, actor, params }) => portico.instances.get(actor, keyOf(params)),
  patchNamespacedInstance: ({ portico, actor, params, body }) =>
    portico.instances.patch(actor, keyOf(params), body),
  deleteNamespacedInstance: ({ portico, actor, params }) => portico.instances.delete(actor, keyOf(params)),
  getClusterInstance: ({ portico, actor, params }) => portico.instances.get(actor, keyOf(params)),
  patchClusterInstance: ({ portico, actor, params, body }) =>
    portico.instances.patch(actor, keyOf(params), body),
  deleteClusterInstance: ({ portico, actor, params }) => portico.instances.delete(actor, keyOf(params)),
  // §11.9: the `_`-less aliases of the cluster-scoped paths
  createClusterInstanceAlias: ({ portico, actor, params, body }) => portico.instances.create(actor, formA(params, body)),
  getClusterInstanceAlias: ({ portico, actor, params }) => portico.instances.get(actor, keyOf(params)),
  patchClusterInstanceAlias: ({ portico, actor, params, body }) => portico.instances.patch(actor, keyOf(params), body),
  deleteClusterInstanceAlias: ({ portico, actor, params }) => portico.instances.delete(actor, keyOf(params)),
});
