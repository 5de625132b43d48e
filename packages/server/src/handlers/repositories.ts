import { routeHandlers } from './types.js';

/** §13: Git repositories of projects; every answer comes from core, none holds a credential. */
export const repositoryHandlers = routeHandlers({
  listRepositories: ({ portico, actor, query }) => portico.repositories.list(actor, query),
  createRepository: ({ portico, actor, body }) => portico.repositories.create(actor, body),
  testRepositoryConnection: ({ portico, actor, body }) => portico.repositories.testConnection(actor, body),
  getRepository: ({ portico, actor, params }) => portico.repositories.get(actor, params.id),
  updateRepository: ({ portico, actor, params, body }) => portico.repositories.update(actor, params.id, body),
  deleteRepository: ({ portico, actor, params }) => portico.repositories.delete(actor, params.id),
  testRepository: ({ portico, actor, params }) => portico.repositories.test(actor, params.id),
});
