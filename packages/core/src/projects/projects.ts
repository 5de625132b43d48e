import * as api from '@portico/api';
import { rbacObject } from '@portico/api';
import type { Actor } from '../actor.js';
import type { Catalog } from '../catalog/index.js';
import type { Informer } from '../cluster/informer-types.js';
import type { PorticoConfig } from '../config.js';
import { badRequest, conflict, forbidden, isPorticoError, notFound } from '../errors.js';
import type { Logger } from '../logger.js';
import { resources, type Cluster, type KubeObject } from '../ports/cluster.js';
import type { Authorizer, EventsService, ProjectsService } from '../types.js';
import { parseInput } from '../validation.js';
import { deleteProjectInstances, type ProjectInstances } from './cascade.js';
import { deleteProjectSecrets } from './project-secrets.js';
import { expandDestinations } from './destinations.js';
import { projectResource, projectSpecOf, projectView, roleSpec, toProject, type ProjectSpec } from './project-resource.js';
import { createProjectLists } from './project-lists.js';
import { createProjectWrites } from './project-writes.js';
import { recordsOfRolesOnly } from './token-records.js';
import { defaultRoles } from './role-templates.js';
import { updatePermissions } from './update-permissions.js';

export interface ProjectsDeps {
  cluster: Cluster;
  /** The informer over Project resources; every read is served from its cache. */
  projects: Informer;
  authz: Authorizer;
  /**
   * Refuses roles whose policies would not compile (throws VALIDATION_FAILED). Injected: the policy language
   * belongs to core/rbac (`validateRoles`), which projects does not import.
   */
  validateRoles: (project: string, roles: api.ProjectRole[]) => void;
  config: Pick<PorticoConfig, 'kubernetes'>;
  /** A project's instances: counted before it is deleted, deleted first by a cascade. */
  instances: ProjectInstances;
  /** The instances' RGDs (a cascade reports progress in their resources). */
  catalog: Pick<Catalog, 'entry'>;
  /** Where a cascade reports its progress (`deploy_progress`). */
  events: EventsService;
  logger?: Logger;
  /** How long a write waits for the informer to show it (default 5 s). */
  settleTimeoutMs?: number;
  /** How long a cascade waits for kro to finish deleting the project's instances (default 60 s). */
  cascadeWaitMs?: number;
}

/**
 * Projects and their bindings (contract §4). Reads come from the informer cache; writes go to the cluster
 * with the resourceVersion they were decided on, and return only after the informer (and with it the
 * authorizer) shows them, so the caller's next request — or anyone's — sees the new policy.
 *
 * Visibility: a project the caller may not `get` is 404, exactly like one that does not exist (same error,
 * same path through the code), so project names cannot be enumerated; a caller who may see the project but
 * lacks the permission for a change gets 403. Writes are project-writes', the cached lists project-lists'.
 *
 * Deletion (contract §14) is Argo CD's rule for an AppProject still in use: a project with instances is refused
 * (409 with their number, told only to a caller who may delete it); `cascade` deletes them first (cascade.ts),
 * then the project's Secrets, then the project.
 */
export function createProjects(deps: ProjectsDeps): ProjectsService {
  const { authz, cluster } = deps;
  const namespace = deps.config.kubernetes.namespace;
  const { cached, settle, projectNotFound, writeSpec, changeBinding } = createProjectWrites({ ...deps, namespace });
  const list = createProjectLists(deps.projects, authz, namespace, cached);

  function authorize(actor: Actor, action: string, object: string) {
    if (!authz.can(actor, action, object)) throw forbidden(`permission denied: ${action} on ${object}`, { action, object });
  }

  /** The cached project the caller may see; 404 when it is absent or the caller may not `get` it. */
  function getVisible(actor: Actor, name: string): KubeObject {
    const obj = cached(name);
    // Both checks run either way, so the answer takes the same path whether the project exists or not.
    const allowed = authz.can(actor, 'get', rbacObject.project(name));
    if (!obj || !allowed) throw notFound('project', name);
    return obj;
  }

  function checkSubject(type: api.BindingType, subject: string) {
    if (!api.BindingType.safeParse(type).success) throw badRequest('binding type must be "user" or "group"', { type });
    const parsed = api.SubjectName.safeParse(subject);
    if (!parsed.success) throw badRequest(`invalid ${type}: ${parsed.error.issues[0].message}`, { [type]: subject });
  }

  return {
    list,

    async create(actor, input) {
      authorize(actor, 'create', rbacObject.allProjects);
      const body = parseInput(api.CreateProjectRequest, input);
      const roles = body.roles ? body.roles.map(roleSpec) : defaultRoles();
      deps.validateRoles(body.name, roles);
      if (cached(body.name)) throw conflict(`project "${body.name}" already exists`, { resource: 'project', identifier: body.name });
      const resource = projectResource({ ...body, roles }, { namespace, createdBy: actor.id });
      const created = await cluster.create(resources.project, resource).catch((e: unknown) => {
        if (isPorticoError(e) && e.code === 'CONFLICT') {
          throw conflict(`project "${body.name}" already exists`, { resource: 'project', identifier: body.name });
        }
        throw e;
      });
      await settle(body.name, { resourceVersion: created.metadata.resourceVersion ?? '' });
      return toProject(created);
    },

    get(actor, name) {
      return projectView(getVisible(actor, name));
    },

    async update(actor, name, input) {
      const current = getVisible(actor, name);
      const body = parseInput(api.UpdateProjectRequest, input);
      if (body.resourceVersion !== current.metadata.resourceVersion) {
        throw conflict(`project "${name}" has been modified since resourceVersion ${body.resourceVersion}; reload it and retry`, {
          resourceVersion: current.metadata.resourceVersion,
        });
      }
      const before = projectSpecOf(current);
      const after: ProjectSpec = {
        description: body.description ?? before.description,
        destinations: body.destinations ?? before.destinations,
        roles: body.roles ? body.roles.map(roleSpec) : before.roles,
      };
      for (const { action, object } of updatePermissions(name, before, after)) authorize(actor, action, object);
      if (body.roles) deps.validateRoles(name, after.roles);
      const spec: Partial<ProjectSpec> = {};
      if (body.description !== undefined) spec.description = after.description;
      if (body.destinations !== undefined) spec.destinations = after.destinations;
      if (body.roles !== undefined) spec.roles = after.roles;
      // A removed role's tokens go with it (§14), so a role created again under its name starts without them.
      const tokens = body.roles ? recordsOfRolesOnly(current, after.roles.map((r) => r.name)) : undefined;
      return toProject(await writeSpec(name, body.resourceVersion, spec, tokens));
    },

    async delete(actor, name, opts = {}) {
      getVisible(actor, name);
      authorize(actor, 'delete', rbacObject.project(name));
      // Only a caller who may delete the project learns how many instances it has.
      const instances = [...deps.instances.index.inProject(name)];
      if (instances.length > 0) {
        if (!opts.cascade) {
          throw conflict(`project "${name}" still has ${instances.length} instance(s): delete them first, or delete the project with cascade`, { instances: instances.length });
        }
        const cascade = { instances: deps.instances, catalog: deps.catalog, cluster, events: deps.events, logger: deps.logger, waitMs: deps.cascadeWaitMs ?? 60_000 };
        await deleteProjectInstances(cascade, actor, name, instances);
      }
      await deleteProjectSecrets(cluster, name, namespace);
      await cluster.delete(resources.project, name, namespace).catch(projectNotFound(name));
      await settle(name, { deleted: true });
    },

    async namespaces(actor, name) {
      const project = getVisible(actor, name);
      const { items } = await cluster.list(resources.namespace);
      const namespaces = expandDestinations(
        projectSpecOf(project).destinations,
        items.map((ns) => ns.metadata.name),
      );
      return { namespaces, count: namespaces.length };
    },

    async bind(actor, name, role, type, subject) {
      getVisible(actor, name);
      authorize(actor, 'create', rbacObject.members(name));
      checkSubject(type, subject);
      await changeBinding(name, role, type, (subjects) => (subjects.includes(subject) ? 'unchanged' : [...subjects, subject]));
      return { project: name, role, type, subject };
    },

    async unbind(actor, name, role, type, subject) {
      getVisible(actor, name);
      authorize(actor, 'delete', rbacObject.members(name));
      checkSubject(type, subject);
      await changeBinding(name, role, type, (subjects) => {
        if (!subjects.includes(subject)) throw notFound('binding', `${name}/${role}/${type}:${subject}`);
        return subjects.filter((s) => s !== subject);
      });
    },

    roleBindings(actor, name) {
      const spec = projectSpecOf(getVisible(actor, name));
      const bindings: api.RoleBindings['bindings'] = [];
      for (const role of spec.roles) {
        for (const subject of role.users) bindings.push({ role: role.name, type: 'user', subject });
        for (const subject of role.groups) bindings.push({ role: role.name, type: 'group', subject });
      }
      return { project: name, bindings };
    },
  };
}
