import type * as api from '@portico/api';
import type { Actor } from '../actor.js';
import type { Authorizer } from '../types.js';
import { localEmail } from './local-account.js';

/** The `user` of login responses, from current policy (roles are never read from the token). */
export function describeActor(authz: Authorizer, actor: Actor): api.User {
  const projects = authz.memberProjects(actor);
  const roles: Record<string, string> = {};
  for (const project of projects) {
    const [first] = authz.rolesIn(actor, project);
    if (first) roles[project] = first;
  }
  return {
    id: actor.id,
    // Tokens issued before local accounts had an address carry none.
    email: actor.email || (actor.local ? localEmail(actor.id) : ''),
    displayName: actor.displayName,
    groups: [...actor.groups],
    projects: [...projects],
    roles,
    casbinRoles: authz.globalRoles(actor),
  };
}
