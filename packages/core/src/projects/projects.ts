import * as api from '@portico/api';
import { actorKey, type Actor } from '../actor.js';
import type { Informer } from '../cluster/informer-types.js';
import type { PorticoConfig } from '../config.js';
import { badRequest, conflict, forbidden, isPorticoError, notFound } from '../errors.js';
import type { Logger } from '../logger.js';
import { resources, type Cluster, type KubeObject } from '../ports/cluster.js';
import type { Authorizer, ProjectsService } from '../types.js';
import { rbacObject } from '@portico/api';
import { expandDestinations } from './destinations.js';
import { projectAnnotations, projectResource, projectSpecOf, projectView, roleSpec, toProject, type ProjectSpec } from './project-resource.js';
import { defaultRoles } from './role-templates.js';
import { retryOnConflict } from '../cluster/retry.js';
import { createSerially } from './serial.js';
import { updatePermissions } from './update-permissions.js';
import { parseInput } from '../validation.js';
import { jsonText, withJsonText } from '../json-text.js';
import { deepFreeze } from '../freeze.js';
import { waitForInformer, type InformerTarget } from './wait-for-informer.js';
import { setBounded } from '../bounded-map.js';

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
  /** Rewrites each role's policies into the stored spelling (the triple); core/rbac's `normalizeRoles`. */
  normalizeRoles: <R extends { name: string; policies: string[] }>(project: string, roles: readonly R[]) => R[];
  config: Pick<PorticoConfig, 'kubernetes'>;
  logger?: Logger;
  /** How long a write waits for the informer to show it (default 5 s). */
  settleTimeoutMs?: number;
}

/** Attempts of a binding change that races another writer (optimistic concurrency on resourceVersion). */
const bindingAttempts = 5;

/** Members' project lists kept at once (distinct sets of subjects); the oldest goes first. */
const maxMemberLists = 1_000;

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Projects and their bindings (contract §4). Reads come from the informer cache; writes go to the cluster
 * with the resourceVersion they were decided on, and return only after the informer (and with it the
 * authorizer) shows them, so the caller's next request — or anyone's — sees the new policy.
 *
 * Visibility: a project the caller may not `get` is 404, exactly like one that does not exist (same error,
 * same path through the code), so project names cannot be enumerated; a caller who may see the project but
 * lacks the permission for a change gets 403.
 */
export function createProjects(deps: ProjectsDeps): ProjectsService {
  const { authz, cluster } = deps;
  const namespace = deps.config.kubernetes.namespace;
  const cached = (name: string) => deps.projects.get(name, namespace);

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

  async function settle(name: string, target: InformerTarget) {
    const ok = await waitForInformer(deps.projects, name, namespace, target, deps.settleTimeoutMs);
    if (!ok) deps.logger?.warn({ project: name, target }, 'project write not yet visible in the informer cache');
  }

  const projectNotFound = (name: string) => (e: unknown) => {
    if (isPorticoError(e) && e.code === 'NOT_FOUND') throw notFound('project', name);
    throw e;
  };

  async function writeSpec(name: string, resourceVersion: string, spec: Partial<ProjectSpec>): Promise<KubeObject> {
    const patch = { metadata: { annotations: { [projectAnnotations.updatedAt]: new Date().toISOString() } }, spec };
    const updated = await cluster
      .patch(resources.project, name, patch, { namespace, resourceVersion })
      .catch(projectNotFound(name));
    await settle(name, { resourceVersion: updated.metadata.resourceVersion ?? '' });
    return updated;
  }

  /**
   * Binding changes of one project on this replica run one at a time. They never conflict in meaning (each
   * adds or removes one subject), but run together they would all patch the same resourceVersion and all but
   * one would lose; with enough of them (a script binding 20 users at once) some would exhaust their retries
   * and answer 409. Queued, each starts from the previous one's settled write, so only writers on other
   * replicas (or kubectl) can make it conflict, and the retries below absorb those.
   */
  const serially = createSerially();

  /**
   * Applies a change to one role's users or groups, retrying when another writer got there first. The first
   * attempt decides on the cached project; retries re-read it from the cluster, since the cache may lag.
   */
  function changeBinding(
    name: string,
    role: string,
    type: api.BindingType,
    change: (subjects: string[]) => string[] | 'unchanged',
  ): Promise<void> {
    return serially(name, () => writeBinding(name, role, type, change));
  }

  async function writeBinding(
    name: string,
    role: string,
    type: api.BindingType,
    change: (subjects: string[]) => string[] | 'unchanged',
  ): Promise<void> {
    let attempt = 0;
    await retryOnConflict(async () => {
      attempt += 1;
      const obj = attempt === 1 ? cached(name) : await cluster.get(resources.project, name, namespace);
      if (!obj) throw notFound('project', name);
      const spec = projectSpecOf(obj);
      const target = spec.roles.find((r) => r.name === role);
      if (!target) throw badRequest(`role "${role}" is not defined in project "${name}"`, { role });
      const subjects = type === 'user' ? target.users : target.groups;
      const next = change([...subjects]);
      if (next === 'unchanged') return;
      const roles = spec.roles.map((r) => (r === target ? { ...r, [type === 'user' ? 'users' : 'groups']: next } : r));
      await writeSpec(name, obj.metadata.resourceVersion ?? '', { roles });
    }, { attempts: bindingAttempts });
  }

  function checkSubject(type: api.BindingType, subject: string) {
    if (!api.BindingType.safeParse(type).success) throw badRequest('binding type must be "user" or "group"', { type });
    const parsed = api.SubjectName.safeParse(subject);
    if (!parsed.success) throw badRequest(`invalid ${type}: ${parsed.error.issues[0].message}`, { [type]: subject });
  }

  /** A Server Admin's list (every project, with every role and binding) until a project changes. */
  let everyProject: api.ProjectList | undefined;
  /**
   * Each member's list, by the subjects its decisions depend on (`actorKey`), until a project or the policy
   * changes: the project list is read on every page load, and for a member it is the same until then.
   */
  const memberLists = new Map<string, api.ProjectList>();
  const forgetLists = () => {
    everyProject = undefined;
    memberLists.clear();
  };
  deps.projects.on(forgetLists);
  authz.onChange(forgetLists);
  // The list spliced from each project's own JSON text (made once per version), not serialised again.
  const projectList = (items: api.Project[]): api.ProjectList =>
    withJsonText({ items, totalCount: items.length }, `{"items":[${items.map(jsonText).join(',')}],"totalCount":${items.length}}`);
  // Frozen: it is shared by every Server Admin's request until a project changes (and so sent as kept bytes).

  return {
    list(actor) {
      if (authz.isServerAdmin(actor)) {
        return (everyProject ??= deepFreeze(projectList(
          deps.projects
            .list()
            .filter((o) => o.metadata.namespace === namespace)
            .map(projectView)
            .sort(byName),
        )));
      }
      const key = actorKey(actor);
      let list = memberLists.get(key);
      if (!list) {
        const items = authz
          .memberProjects(actor)
          .flatMap((p) => cached(p) ?? [])
          .filter((o) => authz.can(actor, 'get', rbacObject.project(o.metadata.name)))
          .map(projectView)
          .sort(byName);
        list = setBounded(memberLists, maxMemberLists, key, deepFreeze(projectList(items)));
      }
      return list;
    },

    async create(actor, input) {
      authorize(actor, 'create', rbacObject.allProjects);
      const body = parseInput(api.CreateProjectRequest, input);
      const roles = body.roles ? deps.normalizeRoles(body.name, body.roles.map(roleSpec)) : defaultRoles();
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
        roles: body.roles ? deps.normalizeRoles(name, body.roles.map(roleSpec)) : before.roles,
      };
      for (const { action, object } of updatePermissions(name, before, after)) authorize(actor, action, object);
      if (body.roles) deps.validateRoles(name, after.roles);
      const spec: Partial<ProjectSpec> = {};
      if (body.description !== undefined) spec.description = after.description;
      if (body.destinations !== undefined) spec.destinations = after.destinations;
      if (body.roles !== undefined) spec.roles = after.roles;
      return toProject(await writeSpec(name, body.resourceVersion, spec));
    },

    async delete(actor, name) {
      getVisible(actor, name);
      authorize(actor, 'delete', rbacObject.project(name));
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
