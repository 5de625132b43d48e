import type * as api from '@portico/api';
import { routeHandlers } from './types.js';


/** §4 projects and membership. */
export const projectsHandlers = routeHandlers({
  listProjects: ({ portico, actor }) => portico.projects.list(actor),
  createProject: ({ portico, actor, body }) => portico.projects.create(actor, body),
  getProject: ({ portico, actor, params }) => portico.projects.get(actor, params.name),
  updateProject: ({ portico, actor, params, body }) =>
    portico.projects.update(actor, params.name, body),
  deleteProject: ({ portico, actor, params, query }) => portico.projects.delete(actor, params.name, { cascade: query.cascade === 'true' }),
  projectNamespaces: ({ portico, actor, params }) => portico.projects.namespaces(actor, params.name),
  bindUser: ({ portico, actor, params }) => portico.projects.bind(actor, params.name, params.role, 'user', params.user),
  unbindUser: ({ portico, actor, params }) => portico.projects.unbind(actor, params.name, params.role, 'user', params.user),
  bindGroup: ({ portico, actor, params }) => portico.projects.bind(actor, params.name, params.role, 'group', params.group),
  unbindGroup: ({ portico, actor, params }) =>
    portico.projects.unbind(actor, params.name, params.role, 'group', params.group),
  roleBindings: ({ portico, actor, params }) => portico.projects.roleBindings(actor, params.name),
});
