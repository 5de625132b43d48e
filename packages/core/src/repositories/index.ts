import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Actor } from '../actor.js';
import type { PorticoConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { Cluster } from '../ports/cluster.js';
import type { KeyValue } from '../ports/keyvalue.js';
import { createGitDeployments, type GitDeployments } from './deployments.js';
import { createHostGuard, parseAllowedHosts, type Lookup } from './host-guard.js';
import { createLocalRepository, LOCAL_REPOSITORY_ID } from './local-repository.js';
import { createPushLock } from './push-lock.js';
import { createRemoteBackends } from './remote-backend.js';
import { createRepoStore } from './repo-store.js';
import { createRepositories, type RepositoriesService, type RepositoryResolver } from './repositories.js';
import { badRequest } from '../errors.js';

export type { GitDeployments, GitPlacement, GitDeployResult } from './deployments.js';
export type { RepositoriesService } from './repositories.js';
export type { GitFileState } from './git-backend.js';
export { LOCAL_REPOSITORY_ID, localRepositorySetting } from './local-repository.js';
export { REPOSITORY_ID_LABEL, REPOSITORY_PROJECT_LABEL } from './repo-objects.js';
export { deleteProjectRepositories } from './repo-store.js';
export { commitUrlOf, parseRepoUrl } from './repo-url.js';
export { addressCategory, allowedHostsSetting, createHostGuard, parseAllowedHosts, type Lookup } from './host-guard.js';

export interface RepositoryModule {
  service: RepositoriesService;
  deployments: GitDeployments;
  /** Removes this replica's local copies of remotes. */
  stop(): Promise<void>;
}

export interface RepositoryModuleDeps {
  cluster: Cluster;
  kv: KeyValue;
  config: PorticoConfig;
  authz: { can(actor: Actor, action: string, object: string): boolean; isServerAdmin(actor: Actor): boolean; memberProjects(actor: Actor): readonly string[] };
  projectNames(): readonly string[];
  instancesUsing(project: string, id: string): number;
  logger: Logger;
  /** DNS as the host guard sees it (tests pass a resolver of their own). */
  lookup?: Lookup;
}

/** How long one push may wait for the branch behind other replicas' pushes. */
const pushWaitMs = 120_000;

/** §13: repositories, their credentials, and the commits Git-mode instances push through them. */
export function createRepositoryModule(deps: RepositoryModuleDeps): RepositoryModule {
  const { config } = deps;
  const logger = deps.logger.child({ module: 'repositories' });
  const guard = createHostGuard(parseAllowedHosts(config.git.allowedHosts), deps.lookup);
  const local = config.gitopsRepo ? createLocalRepository(config.gitopsRepo, logger) : undefined;
  let mirrorRoot: Promise<string> | undefined;
  const service = createRepositories({
    store: createRepoStore(deps.cluster, config.kubernetes.namespace),
    guard,
    authz: deps.authz,
    projectNames: deps.projectNames,
    instancesUsing: deps.instancesUsing,
    local,
    testTimeoutMs: Math.min(config.git.timeoutMs, 10_000),
    logger,
  });
  const backends = createRemoteBackends({
    guard,
    lock: createPushLock(deps.kv, { leaseMs: Math.max(config.git.timeoutMs, 10_000), waitMs: pushWaitMs }),
    mirrorRoot: () => (mirrorRoot ??= mkdtemp(path.join(tmpdir(), 'portico-mirrors-'))),
    timeoutMs: config.git.timeoutMs,
    attempts: 8,
  });
  return {
    service,
    deployments: createGitDeployments(service, backends),
    async stop() {
      if (mirrorRoot) await rm(await mirrorRoot, { recursive: true, force: true }).catch(() => undefined);
    },
  };
}

/**
 * Git deployments through the development default alone (`PORTICO_GITOPS_REPO`), for an instances service built
 * without the repository module (an embedding that wires its own parts); undefined without the setting.
 */
export function localGitDeployments(config: Pick<PorticoConfig, 'gitopsRepo'>, logger: Logger): GitDeployments | undefined {
  if (!config.gitopsRepo) return undefined;
  const local = createLocalRepository(config.gitopsRepo, logger);
  const resolver: RepositoryResolver = {
    local,
    async resolve(project, id) {
      if (id !== LOCAL_REPOSITORY_ID) throw badRequest(`repository "${id}" is not a repository of project "${project}"`, { repositoryId: id, project });
      return { info: local.info(project) };
    },
  };
  return createGitDeployments(resolver, () => {
    throw badRequest('only the development repository is available here', { repositoryId: 'unknown' });
  });
}
