import { ClusterKindParams, NamespacedKindParams } from './instances.js';
import { PreflightRequest, PreflightResponse } from './preflight.js';
import { r } from './route-def.js';

/**
 * §11.4 preflight on both instance path families. `preflight` is a static segment, so the router never reads it as
 * an instance name (a GET there is 405, as a POST to `…/{kind}/{name}` is). Read-only: it writes nothing, so it is
 * not an operation and the audit trail does not record it.
 */
export const preflightRoutes = [
  r({ id: 'namespacedInstancePreflight', method: 'POST', path: '/api/v1/namespaces/{namespace}/instances/{kind}/preflight', auth: 'user', tag: 'instances', summary: 'Would this create succeed? Every check of a create, in its order, writing nothing', params: NamespacedKindParams, body: PreflightRequest, status: 200, response: PreflightResponse, readOnly: true }),
  r({ id: 'clusterInstancePreflight', method: 'POST', path: '/api/v1/instances/_/{kind}/preflight', auth: 'user', tag: 'instances', summary: 'Would this create of a cluster-scoped kind succeed? (writes nothing)', params: ClusterKindParams, body: PreflightRequest, status: 200, response: PreflightResponse, readOnly: true }),
  r({ id: 'clusterInstancePreflightAlias', method: 'POST', path: '/api/v1/instances/{kind}/preflight', auth: 'user', tag: 'instances', summary: 'Would this create succeed? (alias of /instances/_/{kind}/preflight; a Form B body may name its namespace)', params: ClusterKindParams, body: PreflightRequest, status: 200, response: PreflightResponse, readOnly: true }),
] as const;
