import * as api from '@portico/api';
import type { Actor } from '../actor.js';
import { badRequest, conflict, forbidden, notFound, validationFailed } from '../errors.js';
import type { Logger } from '../logger.js';
import { parseInput } from '../validation.js';
import { testConnection, type ConnectionVerdict } from './connection-test.js';
import type { Remote, RepoCredentials } from './git-remote.js';
import type { HostGuard } from './host-guard.js';
import { LOCAL_REPOSITORY_ID, localRepositorySetting, type LocalRepository } from './local-repository.js';
import { repositoryConflict, type RepoStore } from './repo-store.js';
import { parseRepoUrl } from './repo-url.js';

/** §13: a project's Git repositories; none of its answers (or logs) holds a credential. */
export interface RepositoriesService {
  list(actor: Actor, query?: api.RepositoryListQuery): Promise<api.RepositoryList>;
  get(actor: Actor, id: string): Promise<api.RepoInfo>;
  create(actor: Actor, input: api.CreateRepositoryRequest): Promise<api.RepoInfo>;
  /** Any subset; credentials sent replace that transport's stored ones, absent ones are kept. */
  update(actor: Actor, id: string, input: api.UpdateRepositoryRequest): Promise<api.RepoInfo>;
  /** CONFLICT while an instance of the project still deploys through it. */
  delete(actor: Actor, id: string): Promise<void>;
  testConnection(actor: Actor, input: api.TestConnectionRequest): Promise<api.ConnectionTestResult>;
  /** Tests the stored repository and records the verdict as its validationStatus. */
  test(actor: Actor, id: string): Promise<api.RepositoryTestResult>;
}

/** What deployments need from the registry: a repository of a project, with what it takes to reach it. */
export interface RepositoryResolver {
  /** The repository `id` of `project` (400 naming `repositoryId` when the project has no such repository). */
  resolve(project: string, id: string): Promise<{ info: api.RepoInfo; remote?: Remote }>;
  /** The development default (`PORTICO_GITOPS_REPO`), when configured. */
  readonly local?: LocalRepository;
}

export interface RepositoriesDeps {
  store: RepoStore;
  guard: HostGuard;
  authz: { can(actor: Actor, action: string, object: string): boolean; isServerAdmin(actor: Actor): boolean; memberProjects(actor: Actor): readonly string[] };
  /** Every project's name (a Server Admin sees the development default in each). */
  projectNames(): readonly string[];
  /** Instances of the project deploying through the repository. */
  instancesUsing(project: string, id: string): number;
  local?: LocalRepository;
  /** Bound on a connection test, the whole of it. */
  testTimeoutMs: number;
  logger: Logger;
}

const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
const object = (project: string, id: string) => api.rbacObject.repository(project, id);

export function createRepositories(deps: RepositoriesDeps): RepositoriesService & RepositoryResolver {
  const { store, guard, authz } = deps;
  const log = deps.logger.child({ module: 'repositories' });

  const mayRead = (actor: Actor, info: Pick<api.RepoInfo, 'projectId' | 'id'>) =>
    authz.can(actor, 'get', object(info.projectId, info.id)) || authz.can(actor, 'list', object(info.projectId, info.id));
  const visible = async (actor: Actor, id: string): Promise<api.RepoInfo> => {
    if (id === LOCAL_REPOSITORY_ID) {
      const local = localFor(actor)[0];
      if (!local) throw notFound('repository', id);
      return local;
    }
    const info = await store.get(id);
    if (!mayRead(actor, info)) throw notFound('repository', id);
    return info;
  };
  const require = (actor: Actor, action: 'create' | 'update' | 'delete', project: string, id: string) => {
    if (id === LOCAL_REPOSITORY_ID) throw conflict(`the development repository is configured by ${localRepositorySetting} and cannot be changed through the API`, { repositoryId: id, setting: localRepositorySetting });
    if (!authz.can(actor, action, object(project, id))) throw forbidden(`you may not ${action} repositories of project "${project}"`, { resource: 'repositories', action });
  };
  const projectMustExist = (actor: Actor, project: string) => {
    if (deps.projectNames().includes(project)) return;
    if (authz.isServerAdmin(actor)) throw notFound('project', project);
    throw forbidden(`you may not create repositories in project "${project}"`, { resource: 'repositories', action: 'create' });
  };
  /** The URL's host must not be a private address (unless allowed); a name that does not resolve now is checked again at each connection. */
  const checkHost = async (repoURL: string) => {
    const url = parseRepoUrl(repoURL);
    await guard.resolve(url.host).catch((err: unknown) => {
      if ((err as { code?: string }).code === 'BAD_REQUEST') throw err;
    });
  };
  const runTest = (remote: Remote, branch: string): Promise<ConnectionVerdict> => testConnection(remote, branch, { guard, timeoutMs: deps.testTimeoutMs });
  const remoteOf = (info: api.RepoInfo, credentials: RepoCredentials): Remote => ({ url: info.repoURL, authType: info.authType === 'ssh' ? 'ssh' : 'https', credentials });
  const credentialsFrom = (input: { httpsAuth?: api.HttpsAuth; sshAuth?: api.SshAuth }): RepoCredentials => ({ ...input.httpsAuth, ...input.sshAuth });
  const localFor = (actor: Actor, project?: string): api.RepoInfo[] => {
    if (!deps.local) return [];
    const projects = project ? [project] : authz.isServerAdmin(actor) ? deps.projectNames() : authz.memberProjects(actor);
    return projects.filter((p) => deps.projectNames().includes(p) && mayRead(actor, { projectId: p, id: LOCAL_REPOSITORY_ID })).map((p) => deps.local!.info(p));
  };

  return {
    local: deps.local,

    async list(actor, query = {}) {
      const stored = (await store.list(query.projectId)).filter((info) => mayRead(actor, info));
      const items = [...localFor(actor, query.projectId), ...stored];
      return { items, totalCount: items.length };
    },

    get: (actor, id) => visible(actor, id),

    async create(actor, raw) {
      const input = parseInput(api.CreateRepositoryRequest, raw);
      projectMustExist(actor, input.projectId);
      require(actor, 'create', input.projectId, '*');
      await checkHost(input.repoURL);
      const info = await store.create(
        {
          projectId: input.projectId, name: input.name, repoURL: input.repoURL, authType: input.authType, defaultBranch: input.defaultBranch,
          createdBy: actor.id, createdAt: now(), validationStatus: 'unknown',
        },
        { httpsAuth: input.httpsAuth, sshAuth: input.sshAuth },
      );
      log.info({ repository: info.id, project: info.projectId, host: parseRepoUrl(info.repoURL).host, by: actor.id }, 'repository registered');
      return info;
    },

    async update(actor, id, raw) {
      const input = parseInput(api.UpdateRepositoryRequest, raw);
      const current = await visible(actor, id);
      require(actor, 'update', current.projectId, id);
      if (input.projectId !== undefined && input.projectId !== current.projectId) {
        throw validationFailed({ projectId: 'a repository cannot move to another project' }, 'invalid request body field "projectId": a repository cannot move to another project');
      }
      const authType = input.authType ?? (current.authType === 'ssh' ? 'ssh' : 'https');
      const repoURL = input.repoURL ?? current.repoURL;
      const transport = parseRepoUrl(repoURL).transport;
      if (transport !== authType) throw validationFailed({ repoURL: `is an ${transport} URL but authType is ${authType}` }, `invalid request body field "repoURL": is an ${transport} URL but authType is ${authType}`);
      const switched = authType !== current.authType;
      if (authType === 'ssh' && !input.sshAuth && (switched || !(await store.credentials(id)).privateKey)) {
        throw validationFailed({ sshAuth: 'is required for authType ssh (privateKey)' }, 'invalid request body field "sshAuth": is required for authType ssh (privateKey)');
      }
      if (input.repoURL !== undefined) await checkHost(repoURL);
      const reaches = input.repoURL !== undefined || input.authType !== undefined || input.defaultBranch !== undefined || input.httpsAuth !== undefined || input.sshAuth !== undefined;
      const info = await store.update(
        id,
        () => ({
          ...(input.name !== undefined ? { name: input.name } : {}),
          repoURL, authType, defaultBranch: input.defaultBranch ?? current.defaultBranch, updatedBy: actor.id, updatedAt: now(),
          // A repository reached differently has not been tested yet.
          ...(reaches ? { validationStatus: 'unknown' as const, validationMessage: undefined } : {}),
        }),
        { httpsAuth: input.httpsAuth, sshAuth: input.sshAuth, authType, dropOther: switched },
      );
      log.info({ repository: id, project: info.projectId, by: actor.id }, 'repository updated');
      return info;
    },

    async delete(actor, id) {
      const current = await visible(actor, id);
      require(actor, 'delete', current.projectId, id);
      const using = deps.instancesUsing(current.projectId, id);
      if (using > 0) throw repositoryConflict(id, using);
      await store.delete(id);
      log.info({ repository: id, project: current.projectId, by: actor.id }, 'repository deleted');
    },

    async testConnection(actor, raw) {
      const input = parseInput(api.TestConnectionRequest, raw);
      const projects = input.projectId ? [input.projectId] : authz.isServerAdmin(actor) ? deps.projectNames() : authz.memberProjects(actor);
      if (!projects.some((p) => authz.can(actor, 'create', object(p, '*')))) {
        throw forbidden('you may not create repositories in any project, so you may not test one', { resource: 'repositories', action: 'create' });
      }
      return runTest({ url: input.repoURL, authType: input.authType, credentials: credentialsFrom(input) }, input.defaultBranch ?? 'main');
    },

    async test(actor, id) {
      if (id === LOCAL_REPOSITORY_ID && deps.local) {
        await visible(actor, id);
        const verdict = await deps.local.test();
        return { ...verdict, details: { repository: deps.local.url, branch: await deps.local.branch() } };
      }
      const info = await visible(actor, id);
      const verdict = await runTest(remoteOf(info, await store.credentials(id)), info.defaultBranch);
      await store
        .update(id, () => ({ validationStatus: verdict.valid ? 'valid' : 'invalid', validationMessage: verdict.message }))
        .catch((err: unknown) => log.warn({ repository: id, err: (err as Error).message }, 'could not record the test result'));
      return { ...verdict, details: { repository: info.repoURL, branch: info.defaultBranch } };
    },

    async resolve(project, id) {
      if (id === LOCAL_REPOSITORY_ID && deps.local) return { info: deps.local.info(project) };
      const missing = () => badRequest(`repository "${id}" is not a repository of project "${project}"`, { repositoryId: id, project });
      const info = await store.get(id).catch(() => {
        throw missing();
      });
      if (info.projectId !== project) throw missing();
      return { info, remote: remoteOf(info, await store.credentials(id)) };
    },
  };
}
