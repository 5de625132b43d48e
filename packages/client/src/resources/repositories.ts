import type { ConnectionTestResult, RepoInfo, RepositoryList, RepositoryTestResult, RouteBodyInput, RouteQueryInput } from '@portico/api';
import type { CallOptions } from '../options.js';
import type { Transport } from '../transport.js';

/** `{name, projectId, repoURL, authType: 'https'|'ssh', defaultBranch?, httpsAuth?, sshAuth?}`: credentials go in, never come back. */
export type CreateRepositoryInput = RouteBodyInput<'createRepository'>;
/** Any subset; credentials sent replace that transport's stored ones. */
export type UpdateRepositoryInput = RouteBodyInput<'updateRepository'>;
/** `{repoURL, authType, httpsAuth?, sshAuth?, defaultBranch?, projectId?}`: nothing is stored. */
export type TestConnectionInput = RouteBodyInput<'testRepositoryConnection'>;
export type RepositoryListFilter = RouteQueryInput<'listRepositories'>;

/** §13 the Git repositories projects deploy to (`gitops`, `hybrid`). */
export interface RepositoriesApi {
  /** The repositories of the projects you may see (`{projectId}`: one project's). */
  list(filter?: RepositoryListFilter, opts?: CallOptions): Promise<RepositoryList>;
  get(id: string, opts?: CallOptions): Promise<RepoInfo>;
  create(input: CreateRepositoryInput, opts?: CallOptions): Promise<RepoInfo>;
  update(id: string, input: UpdateRepositoryInput, opts?: CallOptions): Promise<RepoInfo>;
  /** 409 while an instance of the project still deploys through it. */
  delete(id: string, opts?: CallOptions): Promise<void>;
  /** Contacts the remote with the stored credentials (an ls-remote of the default branch) and records the verdict. */
  test(id: string, opts?: CallOptions): Promise<RepositoryTestResult>;
  /** Contacts a remote with the credentials given, before registering it. */
  testConnection(input: TestConnectionInput, opts?: CallOptions): Promise<ConnectionTestResult>;
}

export const repositoriesApi = (call: Transport): RepositoriesApi => ({
  list: (filter, opts) => call('listRepositories', { query: filter ?? {} }, opts),
  get: (id, opts) => call('getRepository', { params: { id } }, opts),
  create: (input, opts) => call('createRepository', { body: input }, opts),
  update: (id, input, opts) => call('updateRepository', { params: { id }, body: input }, opts),
  delete: async (id, opts) => void (await call('deleteRepository', { params: { id } }, opts)),
  test: (id, opts) => call('testRepository', { params: { id } }, opts),
  testConnection: (input, opts) => call('testRepositoryConnection', { body: input }, opts),
});
