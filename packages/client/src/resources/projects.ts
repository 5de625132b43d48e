import type { Binding, Project, ProjectList, ProjectNamespaces, RoleBindings, RouteBodyInput } from '@portico/api';
import type { CallOptions } from '../options.js';
import type { Transport } from '../transport.js';
import { projectTokensApi, type ProjectTokensApi } from './project-tokens.js';

/** What `create` sends: the route's body schema as a caller writes it (`z.input`: defaults may be left out). */
export type CreateProjectInput = RouteBodyInput<'createProject'>;
/** What `update` sends; `resourceVersion` is the version read last (a stale one gives 409 CONFLICT). */
export type UpdateProjectInput = RouteBodyInput<'updateProject'>;
/** One role: `<object>, <action>, <effect>` policies relative to the project, e.g. `instances/*, get, allow`. */
export type ProjectRoleInput = NonNullable<CreateProjectInput['roles']>[number];

export interface ProjectsApi {
  list(opts?: CallOptions): Promise<ProjectList>;
  create(input: CreateProjectInput, opts?: CallOptions): Promise<Project>;
  get(name: string, opts?: CallOptions): Promise<Project>;
  update(name: string, input: UpdateProjectInput, opts?: CallOptions): Promise<Project>;
  /**
   * A project that still has instances is refused (409 CONFLICT, `details.instances`); `cascade: true` deletes its
   * instances first, each reported as `deploy_progress` on the events stream, then the project. A cascade waits
   * for kro to remove the instances: give it a longer `timeoutMs` than the default for a big project.
   */
  delete(name: string, opts?: CallOptions & { cascade?: boolean }): Promise<void>;
  /** Real namespaces matching the destinations. */
  namespaces(name: string, opts?: CallOptions): Promise<ProjectNamespaces>;
  bindUser(project: string, role: string, user: string, opts?: CallOptions): Promise<Binding>;
  unbindUser(project: string, role: string, user: string, opts?: CallOptions): Promise<void>;
  bindGroup(project: string, role: string, group: string, opts?: CallOptions): Promise<Binding>;
  unbindGroup(project: string, role: string, group: string, opts?: CallOptions): Promise<void>;
  roleBindings(project: string, opts?: CallOptions): Promise<RoleBindings>;
  /** §14: tokens acting as one role of the project, for CI pipelines. */
  tokens: ProjectTokensApi;
}

export const projectsApi = (call: Transport): ProjectsApi => ({
  list: (opts) => call('listProjects', {}, opts),
  create: (input, opts) => call('createProject', { body: input }, opts),
  get: (name, opts) => call('getProject', { params: { name } }, opts),
  update: (name, input, opts) => call('updateProject', { params: { name }, body: input }, opts),
  delete: (name, opts) => {
    const { cascade, ...callOptions } = opts ?? {};
    return call('deleteProject', { params: { name }, query: cascade ? { cascade: 'true' } : {} }, callOptions);
  },
  namespaces: (name, opts) => call('projectNamespaces', { params: { name } }, opts),
  bindUser: (name, role, user, opts) => call('bindUser', { params: { name, role, user } }, opts),
  unbindUser: (name, role, user, opts) => call('unbindUser', { params: { name, role, user } }, opts),
  bindGroup: (name, role, group, opts) => call('bindGroup', { params: { name, role, group } }, opts),
  unbindGroup: (name, role, group, opts) => call('unbindGroup', { params: { name, role, group } }, opts),
  roleBindings: (name, opts) => call('roleBindings', { params: { name } }, opts),
  tokens: projectTokensApi(call),
});
