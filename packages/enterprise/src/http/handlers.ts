import type * as ee from '@portico/api/enterprise';
import { enterpriseRoutes, type EnterpriseRouteDef } from '@portico/api/enterprise';
import { pluginHandler as handler, type Handler } from '@portico/server';
import type { Enterprise } from '../enterprise.js';

type Slug = { params: { slug: string } };

/** Handlers of the Enterprise route table (`@portico/api/enterprise`), by route id: ONE domain call each. */
function handlersOf(ee: Enterprise): Record<ee.EnterpriseRouteId, Handler> {
  return {
    getLicense: handler(({ actor }) => ee.license.status(actor)),
    applyLicense: handler<{ body: ee.ApplyLicenseRequest }>(({ actor, body }) => ee.license.apply(actor, body)),
    listCategories: handler(({ actor }) => ee.categories.list(actor)),
    getCategory: handler<Slug>(({ actor, params }) => ee.categories.get(actor, params.slug)),
    createCategory: handler<{ body: ee.CreateCategoryRequest }>(({ actor, body }) => ee.categories.create(actor, body)),
    updateCategory: handler<Slug & { body: ee.UpdateCategoryRequest }>(({ actor, params, body }) => ee.categories.update(actor, params.slug, body)),
    deleteCategory: handler<Slug>(({ actor, params }) => ee.categories.delete(actor, params.slug)),
    listViews: handler(({ actor }) => ee.views.list(actor)),
    getView: handler<Slug & { query: ee.ViewDetailQuery }>(({ actor, params, query }) => ee.views.get(actor, params.slug, query)),
    createView: handler<{ body: ee.CreateViewRequest }>(({ actor, body }) => ee.views.create(actor, body)),
    updateView: handler<Slug & { body: ee.UpdateViewRequest }>(({ actor, params, body }) => ee.views.update(actor, params.slug, body)),
    deleteView: handler<Slug>(({ actor, params }) => ee.views.delete(actor, params.slug)),
  };
}

/**
 * The license gate of §12.1 in front of a route, from its row: 402 when its feature is not licensed (writes
 * also once the license expired), `X-License-Warning` in the grace period or over the seats. Every signed-in
 * call also counts toward the seats.
 */
export function licenseGated(ee: Enterprise, route: EnterpriseRouteDef, inner: Handler): Handler {
  const access = route.method === 'GET' ? 'read' : 'write';
  return (call) => {
    if (call.actor) ee.touch(call.actor);
    if (route.feature) {
      const warnings = ee.license.gate(route.feature, access);
      if (warnings.length > 0) call.reply.setHeader('X-License-Warning', warnings.join(', '));
    }
    return inner(call);
  };
}

/** Every Enterprise route of this module with its gated handler. */
export function enterpriseHandlers(ee: Enterprise): Record<string, Handler> {
  const plain = handlersOf(ee);
  return Object.fromEntries(enterpriseRoutes.map((route) => [route.id, licenseGated(ee, route, plain[route.id])]));
}
