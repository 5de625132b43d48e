import { routeHandlers } from './types.js';

/** §14: a project role's tokens; the token itself is only ever in the answer of a creation. */
export const projectTokenHandlers = routeHandlers({
  createProjectToken: ({ portico, actor, params, body }) => portico.projectTokens.create(actor, params.name, params.role, body),
  listProjectTokens: ({ portico, actor, params }) => portico.projectTokens.list(actor, params.name, params.role),
  deleteProjectToken: ({ portico, actor, params }) => portico.projectTokens.delete(actor, params.name, params.role, params.id),
});
