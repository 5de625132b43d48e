import type { Rgd } from '@portico/api';
import type { Actor, DomainEvent, Portico } from '@portico/core';

/** What the catalog offers beyond CatalogService (the real catalog has both; see core's createCatalog). */
interface CatalogVisibility {
  entry(name: string): object | undefined;
  visibleTo(actor: Actor, entry: never): boolean;
}

const hasVisibility = (catalog: unknown): catalog is CatalogVisibility =>
  typeof (catalog as CatalogVisibility).visibleTo === 'function' && typeof (catalog as CatalogVisibility).entry === 'function';

/**
 * Whether `actor` may see an event, decided now (at send time), from current policy: a binding removed a moment
 * ago stops the flow at once, without reconnecting.
 * - instance events: `get` on the instance's RBAC object;
 * - RGD events: the catalog's visibility rule, for a deleted RGD from what the event says about it.
 */
export function eventVisibility(portico: Portico): (actor: Actor, event: DomainEvent, type: 'instances' | 'rgds') => boolean {
  const { authz, catalog } = portico;
  return (actor, event, type) => {
    if (type === 'instances') return event.object !== undefined ? authz.can(actor, 'get', event.object) : authz.isServerAdmin(actor);
    const name = event.name ?? '';
    if (hasVisibility(catalog)) {
      const rgd = (event.data as { rgd?: Rgd } | undefined)?.rgd;
      const entry = catalog.entry(name) ?? (rgd && { name, category: rgd.category, project: event.project });
      return entry !== undefined && catalog.visibleTo(actor, entry as never);
    }
    try {
      catalog.get(actor, name);
      return true;
    } catch {
      return authz.isServerAdmin(actor);
    }
  };
}
