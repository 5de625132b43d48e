import { enterpriseRoutes, type EnterpriseRouteDef } from '@portico/api/enterprise';
import type { RbacResourceRow } from '@portico/api';
import type { Handler, OperationHook, PorticoPlugin } from '@portico/server';
import type { Enterprise } from './enterprise.js';
import { enterpriseOpenApiYaml } from './openapi.js';
import { enterpriseHandlers, licenseGated } from './http/handlers.js';

/** The Enterprise rows of the RBAC vocabulary (can-i, policies, docs table). */
export const enterpriseRbacResources: readonly RbacResourceRow[] = [
  { resource: 'license', base: 'license', segments: [], actions: ['get', 'update'], policy: false, grantedBy: 'get: every signed-in user; update (install a license): Server Admin' },
  {
    resource: 'categories', base: 'categories', segments: ['slug'], actions: ['get', 'list', 'create', 'update', 'delete'], policy: false,
    grantedBy: 'get, list: every signed-in user (counts follow `rgds/*`); create, update, delete: Server Admin',
  },
  { resource: 'views', base: 'views/shared', segments: [], actions: ['create', 'update', 'delete'], policy: false, grantedBy: 'own views: their owner; shared views: Server Admin' },
];

/** What another Enterprise module (the audit trail) adds to the plugin: its routes, handlers, hook, rows. */
export interface EnterpriseModule {
  routes: readonly EnterpriseRouteDef[];
  handlers: Readonly<Record<string, Handler>>;
  rbacResources?: readonly RbacResourceRow[];
  onOperation?: OperationHook;
  readiness?: PorticoPlugin['readiness'];
  eventStreams?: PorticoPlugin['eventStreams'];
  stop?(): Promise<void> | void;
}

/**
 * The Enterprise edition as one server plugin: its route table (license, categories, views, plus the
 * modules'), each row behind the license gate of its feature, its RBAC rows, `/readyz`'s `postgres`
 * component, and the modules' operation hook.
 */
export function enterprisePlugin(ee: Enterprise, modules: readonly EnterpriseModule[] = []): PorticoPlugin {
  const moduleHandlers = Object.fromEntries(
    modules.flatMap((m) => m.routes.map((route) => [route.id, licenseGated(ee, route, m.handlers[route.id]!)] as const)),
  );
  return {
    name: 'enterprise',
    openApi: enterpriseOpenApiYaml,
    routes: [...enterpriseRoutes, ...modules.flatMap((m) => m.routes)],
    handlers: { ...enterpriseHandlers(ee), ...moduleHandlers },
    rbacResources: [...enterpriseRbacResources, ...modules.flatMap((m) => m.rbacResources ?? [])],
    readiness: Object.assign({ postgres: () => ee.database.health() }, ...modules.map((m) => m.readiness ?? {})),
    // One module records operations (the audit trail); more than one would each need a plugin of its own.
    onOperation: modules.find((m) => m.onOperation)?.onOperation,
    eventStreams: modules.flatMap((m) => m.eventStreams ?? []),
    async stop() {
      for (const m of modules) await m.stop?.();
      await ee.stop();
    },
  };
}
