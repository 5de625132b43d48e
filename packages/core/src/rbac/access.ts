import * as api from '@portico/api';
import type { Actor } from '../actor.js';
import { describeActor } from '../auth/describe.js';
import type { Informer } from '../cluster/informer-types.js';
import type { PorticoConfig } from '../config.js';
import { badRequest, notFound } from '../errors.js';
import type { AccessService, Authorizer } from '../types.js';
import { rbacObject } from './objects.js';

export interface AccessDeps {
  authz: Authorizer;
  projects: Informer;
  config: Pick<PorticoConfig, 'kubernetes'>;
}

/** The §5 object a can-i question is about, for one project. */
const objectFor: Record<api.RbacResource, (project: string) => string> = {
  projects: rbacObject.project,
  instances: rbacObject.instances,
  secrets: rbacObject.secrets,
  rgds: rbacObject.rgds,
  members: rbacObject.members,
  roles: rbacObject.roles,
};

/** What the permission summary reports per project: key, action, object. */
const summaryChecks: [string, string, (project: string) => string][] = [
  ...api.rbacActions.map((a): [string, string, (p: string) => string] => [`instances:${a}`, a, rbacObject.instances]),
  ...api.rbacActions.map((a): [string, string, (p: string) => string] => [`secrets:${a}`, a, rbacObject.secrets]),
  ['rgds:get', 'get', rbacObject.rgds],
  ['rgds:list', 'list', rbacObject.rgds],
  ['members:create', 'create', rbacObject.members],
  ['members:delete', 'delete', rbacObject.members],
  ['project:get', 'get', rbacObject.project],
  ['project:update', 'update', rbacObject.project],
  ['project:delete', 'delete', rbacObject.project],
  ['roles:update', 'update', rbacObject.roles],
];

const anyProject = (object: string) => object === '*' || object === '-';

/**
 * "What may I do?" answers (contract §5), all decided by the authorizer on the project-wide objects
 * (`instances/<p>/*`, …): a narrower grant such as `instances/dev/*` does not make the project-wide answer
 * yes, and a narrower deny does not make it no.
 *
 * Visibility: asking about a project that does not exist is NOT_FOUND; asking about an existing project one
 * is not a member of is a plain "no" (the project routes answer 403 in that case too, see docs/rbac.md).
 */
export function createAccess(deps: AccessDeps): AccessService {
  const namespace = deps.config.kubernetes.namespace;
  const { authz } = deps;

  const allProjects = () =>
    deps.projects
      .list()
      .filter((o) => o.metadata.namespace === namespace)
      .map((o) => o.metadata.name)
      .sort();

  const visibleProjects = (actor: Actor) => (authz.isServerAdmin(actor) ? allProjects() : authz.memberProjects(actor));

  /** The role shown for a project: the first role held there, else the first global role, else ''. */
  const displayRole = (actor: Actor, roles: string[]) => roles[0] ?? authz.globalRoles(actor)[0] ?? '';

  return {
    canISummary(actor) {
      const projects: api.CanISummary['projects'] = {};
      for (const project of visibleProjects(actor)) {
        const roles = authz.rolesIn(actor, project);
        const permissions: Record<string, boolean> = {};
        for (const [key, action, object] of summaryChecks) permissions[key] = authz.can(actor, action, object(project));
        projects[project] = { role: displayRole(actor, roles), roles, permissions };
      }
      return { serverAdmin: authz.isServerAdmin(actor), projects };
    },

    canI(actor, params) {
      const parsed = api.CanIParams.safeParse(params);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const parameter = String(issue.path[0] ?? 'params');
        throw badRequest(`invalid ${parameter}: ${issue.message}`, { parameter });
      }
      const { resource, action, object } = parsed.data;
      const yes = (allowed: boolean): api.CanIValue => ({ value: allowed ? 'yes' : 'no' });
      if (anyProject(object)) {
        if (resource === 'projects') return yes(authz.can(actor, action, rbacObject.allProjects));
        // `instances/*/*` names no project: only a global grant (Server Admin) covers it.
        if (authz.can(actor, action, objectFor[resource]('*'))) return yes(true);
        return yes(authz.memberProjects(actor).some((p) => authz.can(actor, action, objectFor[resource](p))));
      }
      if (!deps.projects.get(object, namespace)) throw notFound('project', object);
      return yes(authz.can(actor, action, objectFor[resource](object)));
    },

    accountInfo(actor) {
      // The same user description a sign-in returns, plus the token facts.
      const { id, email, displayName, groups, casbinRoles, projects, roles } = describeActor(authz, actor);
      return {
        userID: id,
        email,
        displayName,
        groups,
        casbinRoles,
        serverAdmin: authz.isServerAdmin(actor),
        projects,
        roles,
        issuer: actor.issuer,
        tokenIssuedAt: actor.issuedAt.toISOString(),
        tokenExpiresAt: actor.expiresAt.toISOString(),
      };
    },
  };
}
