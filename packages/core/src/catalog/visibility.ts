import type { Actor } from '../actor.js';
import { rbacObject } from '@portico/api';
import type { Authorizer } from '../types.js';
import type { CatalogEntry } from './types.js';

/** The RBAC object of an RGD as seen from `project` (contract §5, scoped by the policy compiler). */
export const rgdObject = (project: string, entry: Pick<CatalogEntry, 'category' | 'name'>) =>
  rbacObject.rgd(project, entry.category, entry.name);

/**
 * Who sees an RGD (the documented rule of this project):
 * - a Server Admin sees every catalog RGD;
 * - an RGD labelled with project P is visible iff the actor may `get` `rgds/P/<category>/<name>`;
 * - an unlabelled (public) RGD is visible iff that holds for some project the actor is a member of,
 *   so a user with no project membership sees no RGDs, and `rgds/databases/*` in a role shows only that category.
 *
 * The returned predicate reads the actor's admin flag and member projects once, so one request asks `can` at
 * most (member projects) times per RGD.
 */
export function visibilityFor(authz: Authorizer, actor: Actor): (entry: CatalogEntry) => boolean {
  if (authz.isServerAdmin(actor)) return () => true;
  const projects = authz.memberProjects(actor);
  if (projects.length === 0) return () => false;
  return (entry) => {
    if (entry.project !== undefined) return authz.can(actor, 'get', rgdObject(entry.project, entry));
    return projects.some((p) => authz.can(actor, 'get', rgdObject(p, entry)));
  };
}
