import { execFile } from 'node:child_process';
import { access, mkdir, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { PorticoError, unavailable } from '../errors.js';
import type { Logger } from '../logger.js';
import type { KubeObject } from '../ports/cluster.js';
import type { InstanceKey } from '../types.js';

const run = promisify(execFile);

/** Where a manifest lives in the repository: `<project>/<namespace or _cluster>/<kind>/<name>.yaml`. */
export const manifestPath = (project: string, key: InstanceKey): string =>
  path.posix.join(project, key.namespace || '_cluster', key.kind, `${key.name}.yaml`);

export interface GitWriter {
  /** Writes (or, with `undefined`, removes) one file and commits it; resolves with the new commit sha. */
  commit(relativePath: string, content: string | undefined, message: string): Promise<string>;
  /** Whether the file exists in the working tree. */
  exists(relativePath: string): Promise<boolean>;
}

/** The YAML Portico commits for an instance: what `kubectl apply` (or Argo CD / Flux) would apply. */
export const manifestYaml = (manifest: KubeObject): string => stringify(manifest, { lineWidth: 0 });

// Identity and settings on the command line, so the host's git configuration (signing, hooks) cannot break a commit.
const gitConfig = ['-c', 'user.name=Portico', '-c', 'user.email=portico@localhost', '-c', 'commit.gpgsign=false', '-c', 'core.hooksPath=/dev/null'];

/**
 * Commits to a Git working tree (the GitOps repository a controller such as Argo CD or Flux syncs from).
 * Commits are serialised through one promise queue: two requests never interleave their add/commit steps.
 * The directory is `git init`-ed on first use when it is not the top of a repository.
 */
export function createGitWriter(repoDir: string, logger: Logger): GitWriter {
  const root = path.resolve(repoDir);
  let queue: Promise<unknown> = Promise.resolve();
  let ready: Promise<void> | undefined;

  const git = async (...args: string[]) => (await run('git', [...gitConfig, '-C', root, ...args], { maxBuffer: 1 << 20 })).stdout.trim();

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
    if (!file.startsWith(root + path.sep)) throw new PorticoError('BAD_REQUEST', 'invalid manifest path');
    return file;
  };

  const commitNow = async (relativePath: string, content: string | undefined, message: string): Promise<string> => {
    ready ??= ensureRepository();
    await ready;
    const file = inside(relativePath);
    if (content === undefined) await rm(file, { force: true });
    else {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content);
    }
    await git('add', '-A', '--', relativePath);
    await git('commit', '-q', '--allow-empty', '-m', message);
    return git('rev-parse', 'HEAD');
  };

  return {
    commit(relativePath, content, message) {
      const result = queue.then(() => commitNow(relativePath, content, message));
      queue = result.catch(() => undefined);
      return result.catch((err: unknown) => {
        if (err instanceof PorticoError) throw err;
        logger.error({ err, repo: root, path: relativePath }, 'git commit failed');
        ready = undefined; // the repository may have been removed: check it again next time
        throw unavailable('GitOps repository', 5, err);
      });
    },
    async exists(relativePath) {
      try {
        await access(inside(relativePath));
        return true;
      } catch {
        return false;
      }
    },
  };
}
