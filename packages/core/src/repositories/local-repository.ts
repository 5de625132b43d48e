import { execFile } from 'node:child_process';
import { mkdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type * as api from '@portico/api';
import { PorticoError, conflict } from '../errors.js';
import type { Logger } from '../logger.js';
import type { GitBackend } from './git-backend.js';

const run = promisify(execFile);

/** The id the development default answers to in every project. */
export const LOCAL_REPOSITORY_ID = 'local';
export const localRepositorySetting = 'PORTICO_GITOPS_REPO';

/**
 * The development default (`PORTICO_GITOPS_REPO`): a local working tree Portico commits into, shown as a repository
 * of every project. Nothing is pushed; commits go to the checked-out branch (a `gitBranch` is not taken).
 */
export interface LocalRepository {
  readonly url: string;
  info(project: string): api.RepoInfo;
  branch(): Promise<string>;
  test(): Promise<{ valid: boolean; message: string }>;
  backend: GitBackend;
}

// Identity and settings on the command line (none of them secret), so the host's git configuration cannot break a commit.
const gitConfig = ['-c', 'user.name=Portico', '-c', 'user.email=portico@localhost', '-c', 'commit.gpgsign=false', '-c', 'core.hooksPath=/dev/null'];

export function createLocalRepository(repoDir: string, logger: Logger): LocalRepository {
  const root = path.resolve(repoDir);
  const startedAt = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  let queue: Promise<unknown> = Promise.resolve();
  let ready: Promise<void> | undefined;
  const git = async (...args: string[]) => (await run('git', [...gitConfig, '-C', root, ...args], { maxBuffer: 16 << 20 })).stdout.trim();

  const ensureRepository = async () => {
    await mkdir(root, { recursive: true });
    const top = await git('rev-parse', '--show-toplevel').catch(() => undefined);
    // A folder inside some other repository is not the GitOps repository: give it its own.
    if (!top || (await realpath(top)) !== (await realpath(root))) {
      await git('init', '-q');
      logger.info({ repo: root }, 'initialised the GitOps repository');
    }
  };
  const inside = (relativePath: string) => {
    const file = path.resolve(root, relativePath);
    if (!file.startsWith(root + path.sep)) throw new PorticoError('BAD_REQUEST', 'invalid manifest path', { gitPath: relativePath });
    return file;
  };
  const current = async (relativePath: string) => readFile(inside(relativePath), 'utf8').catch(() => undefined);

  const commitNow = async (relativePath: string, content: string | undefined, expect: 'absent' | 'any', message: string) => {
    ready ??= ensureRepository();
    await ready;
    const file = inside(relativePath);
    if (expect === 'absent' && (await current(relativePath)) !== undefined) throw conflict(`${relativePath} already exists in the repository`, { gitPath: relativePath });
    if (content === undefined) await rm(file, { force: true });
    else {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content);
    }
    await git('add', '-A', '--', relativePath);
    await git('commit', '-q', '--allow-empty', '-m', message);
    return git('rev-parse', 'HEAD');
  };

  const url = `file://${root}`;
  const backend: GitBackend = {
    write(_branch, change) {
      const result = queue.then(() => commitNow(change.path, change.content, change.expect, change.message));
      queue = result.catch(() => undefined);
      return result.then(
        (sha) => ({ sha, changed: true }),
        (err: unknown) => {
          if (err instanceof PorticoError) throw err;
          logger.error({ err, repo: root, path: change.path }, 'git commit failed');
          ready = undefined; // the repository may have been removed: check it again next time
          throw new PorticoError('GITOPS_ERROR', `could not commit to the development repository (${localRepositorySetting})`, { repositoryId: LOCAL_REPOSITORY_ID });
        },
      );
    },
    async read(_branch, relativePath) {
      const content = await current(relativePath);
      const commit = await git('log', '-1', '--format=%H', '--', relativePath).catch(() => '');
      return { ...(content !== undefined ? { content } : {}), ...(commit ? { commit } : {}) };
    },
  };

  return {
    url,
    backend,
    info: (project) => ({
      id: LOCAL_REPOSITORY_ID, projectId: project, name: `Development repository (${localRepositorySetting})`, repoURL: url, authType: 'local',
      defaultBranch: 'HEAD', createdBy: 'system', createdAt: startedAt, validationStatus: 'unknown',
    }),
    branch: () => git('rev-parse', '--abbrev-ref', 'HEAD').catch(() => 'HEAD'),
    async test() {
      try {
        ready ??= ensureRepository();
        await ready;
        return { valid: true, message: `a working tree at ${root}, on branch ${await git('rev-parse', '--abbrev-ref', 'HEAD').catch(() => '(none yet)')}` };
      } catch {
        ready = undefined;
        return { valid: false, message: `${root} is not a Git working tree Portico can write to` };
      }
    },
  };
}
