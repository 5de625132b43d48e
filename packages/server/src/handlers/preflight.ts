import { routeHandlers } from './types.js';

/**
 * §11.4 preflight on both instance path families: the kind (and namespace) from the path, the body as sent.
 * Core reads the body as a create would, so a body a create would refuse is a failed check in a 200.
 */
export const preflightHandlers = routeHandlers({
  namespacedInstancePreflight: ({ portico, actor, params, body }) =>
    portico.instances.preflight(actor, { kind: params.kind, namespace: params.namespace, body }),
  clusterInstancePreflight: ({ portico, actor, params, body }) => portico.instances.preflight(actor, { kind: params.kind, body }),
  clusterInstancePreflightAlias: ({ portico, actor, params, body }) => portico.instances.preflight(actor, { kind: params.kind, body }),
});
