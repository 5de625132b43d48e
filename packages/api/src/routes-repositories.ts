import {
  ConnectionTestResult, CreateRepositoryRequest, RepoInfo, RepositoryList, RepositoryListQuery, RepositoryParams, RepositoryTestResult,
  TestConnectionRequest, UpdateRepositoryRequest,
} from './repositories.js';
import { r } from './route-def.js';

/**
 * §13: the Git repositories projects deploy to (`gitops`, `hybrid`), authorized by `repositories/<project>/<id>`.
 * Credentials go in and never come out. The two tests really contact the remote (an `ls-remote` of the branch).
 */
export const repositoryRoutes = [
  r({ id: 'listRepositories', method: 'GET', path: '/api/v1/repositories', auth: 'user', tag: 'repositories', summary: 'The repositories of the projects the caller may see (projectId: one project\'s)', query: RepositoryListQuery, status: 200, response: RepositoryList }),
  r({ id: 'createRepository', method: 'POST', path: '/api/v1/repositories', auth: 'user', tag: 'repositories', summary: 'Register a Git remote for a project; its credentials go to one Secret and are never returned', body: CreateRepositoryRequest, status: 201, response: RepoInfo, operation: 'repositories.create' }),
  r({ id: 'testRepositoryConnection', method: 'POST', path: '/api/v1/repositories/test-connection', auth: 'user', tag: 'repositories', summary: 'Contact a remote with the credentials given (ls-remote of the branch, 10 s at most); nothing is stored', body: TestConnectionRequest, status: 200, response: ConnectionTestResult, readOnly: true }),
  r({ id: 'getRepository', method: 'GET', path: '/api/v1/repositories/{id}', auth: 'user', tag: 'repositories', summary: 'One repository (never its credentials)', params: RepositoryParams, status: 200, response: RepoInfo }),
  r({ id: 'updateRepository', method: 'PATCH', path: '/api/v1/repositories/{id}', auth: 'user', tag: 'repositories', summary: 'Change any subset; credentials are replaced only when sent', params: RepositoryParams, body: UpdateRepositoryRequest, status: 200, response: RepoInfo, operation: 'repositories.update' }),
  r({ id: 'deleteRepository', method: 'DELETE', path: '/api/v1/repositories/{id}', auth: 'user', tag: 'repositories', summary: 'Remove a repository and its Secret (409 while an instance deploys through it)', params: RepositoryParams, status: 204, operation: 'repositories.delete' }),
  r({ id: 'testRepository', method: 'POST', path: '/api/v1/repositories/{id}/test', auth: 'user', tag: 'repositories', summary: 'Contact the remote with the stored credentials and record the result as its validationStatus', params: RepositoryParams, status: 200, response: RepositoryTestResult, readOnly: true }),
] as const;
