import { routeHandlers } from './types.js';

/** §11.1 a project's Secrets. */
export const secretsHandlers = routeHandlers({
  listSecrets: ({ portico, actor, params }) => portico.secrets.list(actor, params.name),
  createSecret: ({ portico, actor, params, body }) => portico.secrets.create(actor, params.name, body),
  getSecret: ({ portico, actor, params, query }) => portico.secrets.get(actor, params, query),
  updateSecret: ({ portico, actor, params, body }) => portico.secrets.update(actor, params, body),
  deleteSecret: ({ portico, actor, params }) => portico.secrets.delete(actor, params),
});
