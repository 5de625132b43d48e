import { PorticoError, isPorticoError } from '../errors.js';
import type { GitResult } from './git-run.js';
import { scrub } from './git-remote.js';
import type { RepoUrl } from './repo-url.js';

/** Why talking to a remote failed, as a word a client can switch on and a sentence a person can act on. */
export type FailureCause =
  | 'authentication' | 'unknown-host-key' | 'host-key-mismatch' | 'tls' | 'repository-not-found' | 'branch-not-found'
  | 'unreachable' | 'unknown-host' | 'timeout' | 'rejected' | 'non-fast-forward' | 'git';

export interface GitFailure {
  cause: FailureCause;
  message: string;
}

const lines = (text: string) => text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);

/**
 * Reads git's (and ssh's, and curl's) stderr and says what went wrong, in our own words: the message never
 * quotes anything that could hold a credential, and the one free-text fallback is scrubbed of every secret.
 */
export function describeFailure(result: GitResult, url: RepoUrl, ctx: { timeoutMs: number; branch?: string; secrets: readonly string[]; https?: { password: boolean; token: boolean } }): GitFailure {
  const err = result.stderr;
  const where = `${url.host}:${url.port}`;
  if (result.timedOut) return { cause: 'timeout', message: `timed out: ${where} did not answer within ${Math.round(ctx.timeoutMs / 1000)} s` };
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for .* has changed/.test(err)) {
    return { cause: 'host-key-mismatch', message: `host key mismatch: the key ${where} presented is not the one in sshAuth.knownHosts` };
  }
  if (/host key is known|Host key verification failed/i.test(err)) {
    return { cause: 'unknown-host-key', message: `unknown host key: ${where} is not in sshAuth.knownHosts (add its key, e.g. from ssh-keyscan)` };
  }
  if (/Permission denied \(publickey|Permission denied \(.*publickey/.test(err) || /Load key .*: (invalid format|error in libcrypto)/.test(err)) {
    return { cause: 'authentication', message: `authentication failed: ${where} refused the SSH key (wrong key, or not authorized for this repository)` };
  }
  if (/Authentication failed for|could not read (Username|Password) for|HTTP Basic: Access denied|The requested URL returned error: 40[13]/.test(err)) {
    const what = ctx.https?.token ? 'the bearer token' : ctx.https?.password ? 'the username and password' : 'no credentials (the repository needs some)';
    return { cause: 'authentication', message: `authentication failed: ${where} refused ${what}` };
  }
  if (/SSL|certificate|TLS|gnutls_handshake|schannel|handshake failed/i.test(err)) {
    const reason = /server certificate verification failed|certificate verify failed|self.signed|unable to get local issuer|CAfile/i.test(err)
      ? 'the server\'s certificate is not trusted (give its CA in httpsAuth.caCert)'
      : /client certificate|alert (bad|unknown) certificate|certificate required/i.test(err)
        ? 'the server refused the client certificate'
        : 'the TLS handshake failed';
    return { cause: 'tls', message: `TLS failure: ${reason}` };
  }
  if (/repository '.*' not found|does not appear to be a git repository|Repository not found|The requested URL returned error: 404/i.test(err)) {
    return { cause: 'repository-not-found', message: `repository not found: ${where} has no repository at ${url.path}` };
  }
  if (/couldn't find remote ref|Remote branch .* not found/i.test(err) || (result.code === 2 && ctx.branch !== undefined)) {
    return { cause: 'branch-not-found', message: `branch "${ctx.branch ?? ''}" not found in the repository` };
  }
  if (/Could not resolve host|Name or service not known|Temporary failure in name resolution/i.test(err)) {
    return { cause: 'unknown-host', message: `unknown host: "${url.host}" does not resolve` };
  }
  if (/CONNECT tunnel failed|Connection refused|Connection timed out|No route to host|Failed to connect|Network is unreachable|Connection reset|Connection closed by/i.test(err)) {
    return { cause: 'unreachable', message: `could not connect to ${where}` };
  }
  const last = lines(scrub(err, ctx.secrets)).filter((l) => !/^Could not chdir to home directory/.test(l)).at(-1) ?? `exit code ${result.code}`;
  return { cause: 'git', message: `git failed: ${last.replace(/^(fatal|error): /, '').slice(0, 300)}` };
}

/**
 * The error a failed remote operation becomes: a refusal by the host guard (a redirect to a private address)
 * stays the 400 it is, and a host that did not resolve says so; anything else is 502 GITOPS_ERROR with the cause
 * in `details`.
 */
export function remoteError(failure: GitFailure, refusals: readonly Error[], details: Record<string, unknown>): PorticoError {
  const guarded = refusals.filter(isPorticoError);
  const refused = guarded.find((e) => e.code === 'BAD_REQUEST') ?? guarded[0];
  if (refused) return new PorticoError(refused.code, refused.message, { ...refused.details, ...details });
  return new PorticoError('GITOPS_ERROR', failure.message, { ...details, cause: failure.cause });
}
