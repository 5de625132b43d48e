import type * as api from '@portico/api';
import { rbacObject } from '@portico/api';
import type { ProjectSpec } from './project-resource.js';

export interface Permission {
  action: string;
  object: string;
}

type Role = api.Project['roles'][number];

/** What a role permits, without who holds it: changing this is a role change. */
const roleShape = (r: Role) => JSON.stringify([r.name, r.description ?? null, r.policies, r.destinations ?? []]);
const added = (before: readonly string[], after: readonly string[]) => after.some((s) => !before.includes(s));
const removed = (before: readonly string[], after: readonly string[]) => before.some((s) => !after.includes(s));

/**
 * The permissions a project update needs, from what it changes:
 * - description or destinations → `update` on `projects/<p>`;
 * - the set, order, description, policies or destinations of roles → `update` on `projects/<p>/roles` (Server Admin only);
 * - users or groups added to / removed from a role → `create` / `delete` on `projects/<p>/members`;
 * - nothing at all → `update` on `projects/<p>` (a PUT is an update, even an empty one).
 */
export function updatePermissions(project: string, before: ProjectSpec, after: ProjectSpec): Permission[] {
  const needed: Permission[] = [];
  const need = (action: string, object: string) => {
    if (!needed.some((p) => p.action === action && p.object === object)) needed.push({ action, object });
  };
  if (before.description !== after.description || JSON.stringify(before.destinations) !== JSON.stringify(after.destinations)) {
    need('update', rbacObject.project(project));
  }
  if (JSON.stringify(before.roles.map(roleShape)) !== JSON.stringify(after.roles.map(roleShape))) {
    need('update', rbacObject.roles(project));
  }
  for (const next of after.roles) {
    const prev = before.roles.find((r) => r.name === next.name);
    const prevUsers = prev?.users ?? [];
    const prevGroups = prev?.groups ?? [];
    if (added(prevUsers, next.users) || added(prevGroups, next.groups)) need('create', rbacObject.members(project));
    if (removed(prevUsers, next.users) || removed(prevGroups, next.groups)) need('delete', rbacObject.members(project));
  }
  if (needed.length === 0) need('update', rbacObject.project(project));
  return needed;
}
