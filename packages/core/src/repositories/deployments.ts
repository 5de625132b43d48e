import { BranchName, GitPath } from '@portico/api';
import { badRequest } from '../errors.js';
import type { GitBackend, GitChange, GitFileState } from './git-backend.js';
import type { Remote } from './git-remote.js';
import { LOCAL_REPOSITORY_ID, localRepositorySetting } from './local-repository.js';
import type { RepositoryResolver } from './repositories.js';
import { commitUrlOf } from './repo-url.js';

/** Where a Git-mode instance lives: a repository of its project, a branch and a file. */
export interface GitPlacement {
  repositoryId: string;
  repositoryUrl: string;
  branch: string;
  path: string;
}

export interface GitDeployResult {
  sha: string;
  changed: boolean;
  commitUrl?: string;
}

/** What the instance writes need from repositories (§13): where a new instance goes, and its commits. */
export interface GitDeployments {
  /**
   * The placement of a new Git-mode instance of `project`: the repository asked for (it must be the project's:
   * 400 `details.repositoryId` otherwise, or when none is asked and there is no development default), the
   * branch asked for or the repository's default, the path asked for or `defaultPath`.
   */
  place(project: string, ask: { repositoryId?: string; gitBranch?: string; gitPath?: string }, defaultPath: string): Promise<GitPlacement>;
  /** Commits the change to the placement's branch; resolves once the remote has it (502 GITOPS_ERROR otherwise). */
  write(project: string, placement: GitPlacement, change: Omit<GitChange, 'path'>): Promise<GitDeployResult>;
  /** The file as the branch has it now (or as fetched within `maxAgeMs`). */
  read(project: string, placement: GitPlacement, opts?: { maxAgeMs?: number }): Promise<GitFileState>;
  /** Where instances committed before repositories existed live: the development default, when configured. */
  readonly fallback?: { repositoryId: string; repositoryUrl: string; branch: string };
}

/** Resolutions kept for reuse: one per repository of a project in use, so this bound is only a guard. */
const maxRecent = 1000;

export function createGitDeployments(resolver: RepositoryResolver, backendOf: (remote: Remote) => GitBackend): GitDeployments {
  /**
   * The last resolution per project and repository. A read that accepts Git's state up to `maxAgeMs` old accepts
   * the repository's settings as old (a drift sweep reads every file of a branch in a row: one cluster read of the
   * repository for all of them, not two per file); a write, or a read without it, resolves afresh.
   */
  const recent = new Map<string, { at: number; resolved: Promise<{ backend: GitBackend }> }>();
  const backendFor = (project: string, repositoryId: string, maxAgeMs?: number): Promise<{ backend: GitBackend }> => {
    const id = `${project}\0${repositoryId}`;
    const hit = recent.get(id);
    if (hit && maxAgeMs !== undefined && Date.now() - hit.at <= maxAgeMs) return hit.resolved;
    const resolved = resolver.resolve(project, repositoryId).then(({ remote }) => ({ backend: remote ? backendOf(remote) : resolver.local!.backend }));
    if (recent.size >= maxRecent) recent.clear();
    recent.set(id, { at: Date.now(), resolved });
    resolved.catch(() => {
      if (recent.get(id)?.resolved === resolved) recent.delete(id);
    });
    return resolved;
  };
  const local = resolver.local;
  return {
    ...(local ? { fallback: { repositoryId: LOCAL_REPOSITORY_ID, repositoryUrl: local.url, branch: 'HEAD' } } : {}),

    async place(project, ask, defaultPath) {
      const repositoryId = ask.repositoryId ?? (local ? LOCAL_REPOSITORY_ID : undefined);
      if (!repositoryId) {
        throw badRequest(`a Git-mode deployment needs repositoryId: a repository of project "${project}"`, { repositoryId: 'required', project });
      }
      // In-process callers skip the server's schema: the same rules here.
      if (ask.gitBranch !== undefined && !BranchName.safeParse(ask.gitBranch).success) throw badRequest('gitBranch must be a valid Git branch name', { gitBranch: ask.gitBranch });
      if (ask.gitPath !== undefined && !GitPath.safeParse(ask.gitPath).success) throw badRequest('gitPath must be a relative path without "..", "." or empty segments, outside .git', { gitPath: ask.gitPath });
      const { info } = await resolver.resolve(project, repositoryId);
      if (repositoryId === LOCAL_REPOSITORY_ID && ask.gitBranch !== undefined) {
        throw badRequest(`the development repository (${localRepositorySetting}) commits to its checked-out branch: gitBranch is not taken`, { gitBranch: ask.gitBranch });
      }
      return { repositoryId, repositoryUrl: info.repoURL, branch: ask.gitBranch ?? info.defaultBranch, path: ask.gitPath ?? defaultPath };
    },

    async write(project, placement, change) {
      const { backend } = await backendFor(project, placement.repositoryId);
      const result = await backend.write(placement.branch, { ...change, path: placement.path });
      const commitUrl = placement.repositoryId === LOCAL_REPOSITORY_ID ? undefined : commitUrlOf(placement.repositoryUrl, result.sha);
      return { ...result, ...(commitUrl ? { commitUrl } : {}) };
    },

    async read(project, placement, opts) {
      const { backend } = await backendFor(project, placement.repositoryId, opts?.maxAgeMs);
      return backend.read(placement.branch, placement.path, opts);
    },
  };
}
