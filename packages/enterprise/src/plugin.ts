import { enterpriseRoutes, type EnterpriseRouteDef } from '@portico/api/enterprise';
import type { Handler, ServerPlugin } from '@portico/server';
import type { Enterprise } from './enterprise.js';
import { enterpriseOpenApiYaml } from './openapi.js';
import { enterpriseHandlers, licenseGate } from './http/handlers.js';

/** What an Enterprise module (audit trail, compliance, its history) serves: handlers of rows of the one table. */
export interface EnterpriseModule {
  handlers: Readonly<Record<string, Handler>>;
  readiness?: ServerPlugin['readiness'];
  stop?(): Promise<void> | void;
}

/**
 * The Enterprise edition as one server plugin: the one Enterprise route table, each row behind the license gate
 * of its feature (answered before the input is read), the handlers of the license, category and view rows and of the modules, `/readyz`'s
 * `postgres` component. (Its RBAC rows, operations and audit hook went to `createPortico`: core-plugin.ts.)
 */
export function enterprisePlugin(ee: Enterprise, modules: readonly EnterpriseModule[] = []): ServerPlugin {
  const plain: Record<string, Handler> = Object.assign({}, enterpriseHandlers(ee), ...modules.map((m) => m.handlers));
  const rows = enterpriseRoutes as readonly EnterpriseRouteDef[];
  const missing = rows.filter((route) => !plain[route.id]).map((route) => route.id);
  if (missing.length > 0) throw new Error(`no Enterprise handler for route(s): ${missing.join(', ')}`);
  return {
    name: 'enterprise',
    openApi: enterpriseOpenApiYaml,
    routes: rows,
    handlers: plain,
    gates: Object.fromEntries(rows.map((route) => [route.id, licenseGate(ee, route)])),
    readiness: Object.assign({ postgres: () => ee.database.health() }, ...modules.map((m) => m.readiness ?? {})),
    async stop() {
      for (const m of modules) await m.stop?.();
      await ee.stop();
    },
  };
}
