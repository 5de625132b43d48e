import { createHash } from 'node:crypto';
import { PorticoError, conflict, isPorticoError } from '../errors.js';
import type { GitBackend, GitChange, GitWriteResult } from './git-backend.js';
import { describeFailure, remoteError } from './git-failure.js';
import { createGitMirror, RemoteFailure, type GitMirror } from './git-mirror.js';
import { scrub, withRemote, type Remote, type RemoteSession } from './git-remote.js';
import type { HostGuard } from './host-guard.js';
import type { PushLock } from './push-lock.js';
import { gitUrlOf, parseRepoUrl } from './repo-url.js';

export interface RemoteBackendDeps {
  guard: HostGuard;
  lock: PushLock;
  /** Where this replica keeps its bare copies (removed when Portico stops). */
  mirrorRoot: () => Promise<string>;
  /** Bound on each git command (a fetch, a push). */
  timeoutMs: number;
  /** Pushes tried before a branch that keeps moving is reported (each after a fresh fetch). */
  attempts: number;
}

/** The remote's own words about a refused push (`remote: …` lines, hooks' output), scrubbed and short. */
const remoteLines = (stderr: string, secrets: readonly string[]) =>
  scrub(stderr, secrets)
    .split(/\r?\n/)
    .filter((l) => l.startsWith('remote:') && l.slice(7).trim())
    .slice(0, 3)
    .map((l) => l.slice(7).trim().slice(0, 200));

/**
 * Git backends of remote repositories: every write is fetch, commit on the fetched tip, push, under the push
 * lock of the repository URL and branch; a push the remote refuses as stale (someone else pushed) is redone on
 * the new tip. The answer comes once the remote has the commit.
 */
export function createRemoteBackends(deps: RemoteBackendDeps): (remote: Remote) => GitBackend {
  const mirrors = new Map<string, Promise<GitMirror>>();
  const mirrorOf = (url: string) => {
    let mirror = mirrors.get(url);
    if (!mirror) mirrors.set(url, (mirror = deps.mirrorRoot().then((root) => createGitMirror(root, url, deps.timeoutMs))));
    return mirror;
  };

  return (remote) => {
    const url = parseRepoUrl(remote.url);
    // One lock for one remote branch, whichever projects use the URL.
    const canonical = gitUrlOf(url);
    const lockKey = (branch: string) => `git-push:${createHash('sha256').update(canonical).digest('hex').slice(0, 32)}:${branch}`;
    const https = { password: Boolean(remote.credentials.password), token: Boolean(remote.credentials.bearerToken) };

    /** A failure of git as the error a request answers: what went wrong, never a credential. */
    const failed = (err: unknown, session: RemoteSession, branch: string): never => {
      if (err instanceof RemoteFailure) {
        const failure = describeFailure(err.result, url, { timeoutMs: deps.timeoutMs, branch, secrets: session.secrets, https });
        throw remoteError(failure, session.refusals(), { branch });
      }
      throw err;
    };

    /**
     * One attempt. The first starts from the tip this copy last saw (its own last push, usually): if the remote
     * has moved on since, the push is refused as stale and the next attempt fetches. A push that lands proves its
     * base was the remote's tip, so the `absent` check made on that base was made on the remote's tree.
     */
    const writeOnce = async (session: RemoteSession, mirror: GitMirror, branch: string, change: GitChange, fresh: boolean): Promise<GitWriteResult | 'stale'> => {
      const tip = (fresh ? undefined : await mirror.knownTip(branch)) ?? (await mirror.fetch(session, branch));
      const current = await mirror.readFile(tip, change.path);
      if (change.expect === 'absent' && current.content !== undefined) {
        throw conflict(`${change.path} already exists on branch ${branch}`, { gitPath: change.path, branch });
      }
      const commit = await mirror.commit(tip, change.path, change.content, change.message);
      if (!commit) return { sha: (await mirror.readFile(tip, change.path, true)).commit ?? tip ?? '', changed: false };
      const pushed = await mirror.push(session, commit, branch);
      if (pushed.outcome === 'ok') return { sha: commit, changed: true };
      if (pushed.outcome === 'stale') return 'stale';
      const said = remoteLines(pushed.result.stderr, session.secrets);
      throw new PorticoError('GITOPS_ERROR', `the remote refused the push to ${branch}: ${pushed.reason}${said.length ? ` (${said.join('; ')})` : ''}`, { branch, cause: 'rejected' });
    };

    return {
      async write(branch, change) {
        const mirror = await mirrorOf(canonical);
        return deps.lock.run(lockKey(branch), () =>
          withRemote(remote, deps.guard, { timeoutMs: deps.timeoutMs }, async (session) => {
            try {
              for (let attempt = 1; attempt <= deps.attempts; attempt++) {
                const result = await writeOnce(session, mirror, branch, change, attempt > 1);
                if (result !== 'stale') return result;
              }
            } catch (err) {
              return failed(err, session, branch);
            }
            throw new PorticoError('GITOPS_ERROR', `branch ${branch} kept moving: ${deps.attempts} pushes were overtaken by others`, { branch, cause: 'non-fast-forward' });
          }),
        );
      },

      async read(branch, path, opts = {}) {
        const mirror = await mirrorOf(canonical);
        return deps.lock.inLine(lockKey(branch), async () => {
          // Seen recently (many files of one branch compared in a row, or just pushed here): no round trip.
          if (opts.maxAgeMs !== undefined && Date.now() - mirror.seenAt(branch) <= opts.maxAgeMs) {
            const tip = await mirror.knownTip(branch);
            if (tip) return mirror.readFile(tip, path, true);
          }
          return withRemote(remote, deps.guard, { timeoutMs: deps.timeoutMs }, async (session) => {
            try {
              return await mirror.readFile(await mirror.fetch(session, branch), path, true);
            } catch (err) {
              if (isPorticoError(err)) throw err;
              return failed(err, session, branch);
            }
          });
        });
      },
    };
  };
}
