import { routeHandlers } from './types.js';

/** §11.3 a project's Secrets, on both path families (the second, `/secrets?project=`, is the one consoles in the field call). */
export const secretsHandlers = routeHandlers({
  listSecrets: ({ portico, actor, params }) => portico.secrets.list(actor, params.name),
  createSecret: ({ portico, actor, params, body }) => portico.secrets.create(actor, params.name, body),
  getSecret: ({ portico, actor, params, query }) => portico.secrets.get(actor, params, query),
  updateSecret: ({ portico, actor, params, body }) => portico.secrets.update(actor, params, body),
  deleteSecret: ({ portico, actor, params }) => portico.secrets.delete(actor, params),
  listSecretsOfProject: ({ portico, actor, query }) => portico.secrets.page(actor, query),
  createSecretInProject: ({ portico, actor, query, body }) => portico.secrets.create(actor, query.project, body),
  secretExists: ({ portico, actor, params, query }) => portico.secrets.exists(actor, { name: query.project, namespace: query.namespace, secret: params.secret }),
  getSecretWithData: ({ portico, actor, params, query }) => portico.secrets.reveal(actor, { name: query.project, namespace: query.namespace, secret: params.secret }),
  upsertSecretKeys: ({ portico, actor, params, query, body }) => portico.secrets.upsertKeys(actor, query.project, params.secret, body),
  deleteSecretOfProject: ({ portico, actor, params, query }) => portico.secrets.remove(actor, { name: query.project, namespace: query.namespace, secret: params.secret }),
});
