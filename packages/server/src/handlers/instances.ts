import type * as api from '@portico/api';
import type { CreateInstanceInput, InstanceKey } from '@portico/core';
import { handler } from './types.js';

/** `_` in a path stands for "no namespace" (cluster-scoped kinds). */
const clusterScoped = '';

type KindPath = { params: { namespace?: string; kind: string } };
type InstancePath = { params: { namespace?: string; kind: string; name: string } };

/** Both body forms accept `project`/`projectId` and `values`/`spec`; the schemas guarantee a project. */
const common = (body: api.CreateInstanceFormA | api.CreateInstanceFormB) => ({
  name: body.name,
  project: body.project ?? body.projectId ?? '',
  values: body.values ?? body.spec ?? {},
  deploymentMode: body.deploymentMode,
});

/** Form A: the kind (and namespace, unless `_`) from the path. */
const formA = (params: KindPath['params'], body: api.CreateInstanceFormA): CreateInstanceInput => ({
  ...common(body),
  namespace: params.namespace ?? clusterScoped,
  kind: params.kind,
});

/** Form B: everything in the flat body; the kind follows from `rgdName`. */
const formB = (body: api.CreateInstanceFormB): CreateInstanceInput => ({
  ...common(body),
  namespace: body.namespace ?? clusterScoped,
  kind: undefined,
  rgdName: body.rgdName,
});

const keyOf = (params: InstancePath['params']): InstanceKey => ({
  namespace: params.namespace ?? clusterScoped,
  kind: params.kind,
  name: params.name,
});

/** §6 instances: three creation forms onto one domain call; get/patch/delete by {namespace, kind, name}. */
export const instancesHandlers = {
  listInstances: handler<{ query: api.InstanceListQuery }>(({ portico, actor, query }) => portico.instances.list(actor, query)),
  countInstances: handler(({ portico, actor }) => portico.instances.count(actor)),
  createInstance: handler<{ body: api.CreateInstanceFormB }>(({ portico, actor, body }) => portico.instances.create(actor, formB(body))),
  createNamespacedInstance: handler<KindPath & { body: api.CreateInstanceFormA }>(({ portico, actor, params, body }) =>
    portico.instances.create(actor, formA(params, body)),
  ),
  createClusterInstance: handler<KindPath & { body: api.CreateInstanceFormA }>(({ portico, actor, params, body }) =>
    portico.instances.create(actor, formA(params, body)),
  ),
  getNamespacedInstance: handler<InstancePath>(({ portico, actor, params }) => portico.instances.get(actor, keyOf(params))),
  patchNamespacedInstance: handler<InstancePath & { body: api.PatchInstanceRequest }>(({ portico, actor, params, body }) =>
    portico.instances.patch(actor, keyOf(params), body),
  ),
  deleteNamespacedInstance: handler<InstancePath>(({ portico, actor, params }) => portico.instances.delete(actor, keyOf(params))),
  getClusterInstance: handler<InstancePath>(({ portico, actor, params }) => portico.instances.get(actor, keyOf(params))),
  patchClusterInstance: handler<InstancePath & { body: api.PatchInstanceRequest }>(({ portico, actor, params, body }) =>
    portico.instances.patch(actor, keyOf(params), body),
  ),
  deleteClusterInstance: handler<InstancePath>(({ portico, actor, params }) => portico.instances.delete(actor, keyOf(params))),
};
