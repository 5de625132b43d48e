import type * as api from '@portico/api';
import { handler } from './types.js';

type ProjectPath = { params: { name: string } };
type UserPath = { params: { name: string; role: string; user: string } };
type GroupPath = { params: { name: string; role: string; group: string } };

/** §4 projects and membership. */
export const projectsHandlers = {
  listProjects: handler(({ portico, actor }) => portico.projects.list(actor)),
  createProject: handler<{ body: api.CreateProjectRequest }>(({ portico, actor, body }) => portico.projects.create(actor, body)),
  getProject: handler<ProjectPath>(({ portico, actor, params }) => portico.projects.get(actor, params.name)),
  updateProject: handler<ProjectPath & { body: api.UpdateProjectRequest }>(({ portico, actor, params, body }) =>
    portico.projects.update(actor, params.name, body),
  ),
  deleteProject: handler<ProjectPath>(({ portico, actor, params }) => portico.projects.delete(actor, params.name)),
  projectNamespaces: handler<ProjectPath>(({ portico, actor, params }) => portico.projects.namespaces(actor, params.name)),
  bindUser: handler<UserPath>(({ portico, actor, params }) => portico.projects.bind(actor, params.name, params.role, 'user', params.user)),
  unbindUser: handler<UserPath>(({ portico, actor, params }) => portico.projects.unbind(actor, params.name, params.role, 'user', params.user)),
  bindGroup: handler<GroupPath>(({ portico, actor, params }) => portico.projects.bind(actor, params.name, params.role, 'group', params.group)),
  unbindGroup: handler<GroupPath>(({ portico, actor, params }) =>
    portico.projects.unbind(actor, params.name, params.role, 'group', params.group),
  ),
  roleBindings: handler<ProjectPath>(({ portico, actor, params }) => portico.projects.roleBindings(actor, params.name)),
};
