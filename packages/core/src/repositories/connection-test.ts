import { isPorticoError } from '../errors.js';
import { describeFailure, remoteError } from './git-failure.js';
import { withRemote, type Remote } from './git-remote.js';
import { runGit } from './git-run.js';
import type { HostGuard } from './host-guard.js';
import { parseRepoUrl } from './repo-url.js';

export interface ConnectionVerdict {
  valid: boolean;
  message: string;
}

/**
 * Contacts the remote as a deployment would (the same guard, transport and credentials) and asks for the branch:
 * `git ls-remote --exit-code <url> refs/heads/<branch>`, all of it within `timeoutMs`. A refused host (the URL's, or
 * a redirect's) is the 400 it is everywhere; every other failure is `valid: false` with a message naming the
 * cause and no credential.
 */
export async function testConnection(remote: Remote, branch: string, deps: { guard: HostGuard; timeoutMs: number }): Promise<ConnectionVerdict> {
  const url = parseRepoUrl(remote.url);
  const deadline = Date.now() + deps.timeoutMs;
  const c = remote.credentials;
  try {
    return await withRemote(remote, deps.guard, { timeoutMs: deps.timeoutMs }, async (session) => {
      const timeoutMs = Math.max(1, deadline - Date.now());
      const result = await runGit(['ls-remote', '--exit-code', session.gitUrl, `refs/heads/${branch}`], { env: session.env, timeoutMs });
      if (result.code === 0) {
        const sha = result.stdout.split(/\s/)[0] ?? '';
        return { valid: true, message: `connected: branch "${branch}" is at ${sha.slice(0, 12)}` };
      }
      const failure = describeFailure(result, url, { timeoutMs: deps.timeoutMs, branch, secrets: session.secrets, https: { password: Boolean(c.password), token: Boolean(c.bearerToken) } });
      const error = remoteError(failure, session.refusals(), {});
      if (error.code === 'BAD_REQUEST') throw error;
      return { valid: false, message: error.message };
    });
  } catch (err) {
    // The guard's own verdicts on the URL's host: refused (400) stays an error, a name that does not resolve is a failed test.
    if (isPorticoError(err) && err.code === 'GITOPS_ERROR') return { valid: false, message: err.message };
    throw err;
  }
}
