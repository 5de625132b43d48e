import type { Binding, Project, ProjectList, ProjectNamespaces, RoleBindings } from '@portico/api';
import type { CallOptions } from '../options.js';
import type { Transport } from '../transport.js';

export interface ProjectRoleInput {
  name: string;
  description?: string;
  /** `<object>, <action>, <effect>` triples relative to the project, e.g. `instances/*, get, allow`. */
  policies?: string[];
  groups?: string[];
  users?: string[];
}

export interface CreateProjectInput {
  name: string;
  description?: string;
  /** Namespaces or patterns (`*`, `prefix*`, `*suffix`). */
  destinations?: { namespace: string }[];
  roles?: ProjectRoleInput[];
}

export interface UpdateProjectInput {
  description?: string;
  destinations?: { namespace: string }[];
  roles?: ProjectRoleInput[];
  /** The version read last; a stale one gives 409 CONFLICT. */
  resourceVersion: string;
}

export interface ProjectsApi {
  list(opts?: CallOptions): Promise<ProjectList>;
  create(input: CreateProjectInput, opts?: CallOptions): Promise<Project>;
  get(name: string, opts?: CallOptions): Promise<Project>;
  update(name: string, input: UpdateProjectInput, opts?: CallOptions): Promise<Project>;
  delete(name: string, opts?: CallOptions): Promise<void>;
  /** Real namespaces matching the destinations. */
  namespaces(name: string, opts?: CallOptions): Promise<ProjectNamespaces>;
  bindUser(project: string, role: string, user: string, opts?: CallOptions): Promise<Binding>;
  unbindUser(project: string, role: string, user: string, opts?: CallOptions): Promise<void>;
  bindGroup(project: string, role: string, group: string, opts?: CallOptions): Promise<Binding>;
  unbindGroup(project: string, role: string, group: string, opts?: CallOptions): Promise<void>;
  roleBindings(project: string, opts?: CallOptions): Promise<RoleBindings>;
}

export const projectsApi = (call: Transport): ProjectsApi => ({
  list: (opts) => call<ProjectList>('listProjects', {}, opts),
  create: (input, opts) => call<Project>('createProject', { body: input }, opts),
  get: (name, opts) => call<Project>('getProject', { params: { name } }, opts),
  update: (name, input, opts) => call<Project>('updateProject', { params: { name }, body: input }, opts),
  delete: (name, opts) => call<void>('deleteProject', { params: { name } }, opts),
  namespaces: (name, opts) => call<ProjectNamespaces>('projectNamespaces', { params: { name } }, opts),
  bindUser: (name, role, user, opts) => call<Binding>('bindUser', { params: { name, role, user } }, opts),
  unbindUser: (name, role, user, opts) => call<void>('unbindUser', { params: { name, role, user } }, opts),
  bindGroup: (name, role, group, opts) => call<Binding>('bindGroup', { params: { name, role, group } }, opts),
  unbindGroup: (name, role, group, opts) => call<void>('unbindGroup', { params: { name, role, group } }, opts),
  roleBindings: (name, opts) => call<RoleBindings>('roleBindings', { params: { name } }, opts),
});
