import type { EnterpriseRouteDef, EnterpriseRouteRow } from '@portico/api/enterprise';
import { tableHandlers, type Handler, type RouteGate } from '@portico/server';
import type { Enterprise } from '../enterprise.js';

/** Handlers of the license, category and view rows of the Enterprise table, typed from their rows: ONE domain call each. */
const handlersOf = (ee: Enterprise) =>
  tableHandlers<EnterpriseRouteRow>()({
    getLicense: ({ actor }) => ee.license.status(actor),
    applyLicense: ({ actor, body }) => ee.license.apply(actor, body),
    listCategories: ({ actor }) => ee.categories.list(actor),
    getCategory: ({ actor, params }) => ee.categories.get(actor, params.slug),
    createCategory: ({ actor, body }) => ee.categories.create(actor, body),
    updateCategory: ({ actor, params, body }) => ee.categories.update(actor, params.slug, body),
    deleteCategory: ({ actor, params }) => ee.categories.delete(actor, params.slug),
    listViews: ({ actor }) => ee.views.list(actor),
    getView: ({ actor, params, query }) => ee.views.get(actor, params.slug, query),
    createView: ({ actor, body }) => ee.views.create(actor, body),
    updateView: ({ actor, params, body }) => ee.views.update(actor, params.slug, body),
    deleteView: ({ actor, params }) => ee.views.delete(actor, params.slug),
  });

/**
 * The license gate of §12.1 in front of a route, from its row: 402 when its feature is not licensed (writes
 * also once the license expired), `X-License-Warning` in the grace period or over the seats. It runs before the
 * route's input is read, so an unlicensed caller hears 402, not a 400 about a body the edition would not take.
 * Every signed-in call also counts toward the seats.
 */
export function licenseGate(ee: Enterprise, route: EnterpriseRouteDef): RouteGate {
  const access = route.method === 'GET' ? 'read' : 'write';
  const { feature } = route;
  return (actor, reply) => {
    if (actor) ee.touch(actor);
    if (!feature) return;
    const warnings = ee.license.gate(feature, access);
    if (warnings.length > 0) reply.setHeader('X-License-Warning', warnings.join(', '));
  };
}

/** The license, category and view handlers (the modules bring the others). */
export const enterpriseHandlers = (ee: Enterprise): Record<string, Handler> => handlersOf(ee);
