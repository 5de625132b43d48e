import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEgressProxy, type EgressProxy } from './egress-proxy.js';
import type { HostGuard } from './host-guard.js';
import { gitUrlOf, knownHostsName, parseRepoUrl } from './repo-url.js';

/** What a repository's Secret holds; every field optional (a public repository needs none). */
export interface RepoCredentials {
  username?: string;
  password?: string;
  bearerToken?: string;
  tlsClientCert?: string;
  tlsClientKey?: string;
  caCert?: string;
  privateKey?: string;
  knownHosts?: string;
}

export interface Remote {
  url: string;
  authType: 'https' | 'ssh';
  credentials: RepoCredentials;
}

/** One conversation with a remote: the URL and environment to run git with, and what to clean up after. */
export interface RemoteSession {
  /** The URL to hand git (SSH: the checked address in place of the name). */
  gitUrl: string;
  env: Record<string, string>;
  /** Connections the host guard refused during the run (a redirect to a private address). */
  refusals(): readonly Error[];
  /** Every credential value, to scrub from anything shown or logged. */
  secrets: readonly string[];
  close(): Promise<void>;
}

/** Environment every git run starts from: no system or user configuration, no prompts, stable messages. */
export function baseGitEnv(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '/bin/false',
    SSH_ASKPASS: '/bin/false',
    GIT_AUTHOR_NAME: 'Portico',
    GIT_AUTHOR_EMAIL: 'portico@localhost',
    GIT_COMMITTER_NAME: 'Portico',
    GIT_COMMITTER_EMAIL: 'portico@localhost',
  };
}

/** Git configuration through the environment (`GIT_CONFIG_KEY_n`): values here never show in a process listing. */
function configEnv(entries: Array<[string, string]>): Record<string, string> {
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(entries.length) };
  entries.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

// Answers git's two questions from the environment git itself was given (the values are never in a file), and
// only for the repository's own host: a redirect to another host never gets the credentials.
const askpassScript = [
  '#!/bin/sh',
  'case "$1" in',
  '  *"//$PORTICO_GIT_HOST\'"*|*"@$PORTICO_GIT_HOST\'"*) ;;',
  '  *) exit 1 ;;',
  'esac',
  'case "$1" in',
  '  Username*) printf \'%s\\n\' "$PORTICO_GIT_USERNAME" ;;',
  '  *) printf \'%s\\n\' "$PORTICO_GIT_PASSWORD" ;;',
  'esac',
  '',
].join('\n');

/** PEM and key text as OpenSSH and curl read it: LF line ends and a final newline. */
const asFile = (text: string) => `${text.replace(/\r\n?/g, '\n').trimEnd()}\n`;
const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * Prepares a conversation with `remote`: HTTPS goes through an egress proxy that checks every connection
 * (redirects too); SSH connects to the address the guard checked, with the host key looked up under the name.
 * Credentials reach git through the environment and 0600 files in a private directory that `close` removes.
 */
export async function openRemote(remote: Remote, guard: HostGuard, opts: { timeoutMs: number }): Promise<RemoteSession> {
  const url = parseRepoUrl(remote.url);
  const c = remote.credentials;
  const secrets = [c.password, c.bearerToken, c.tlsClientKey, c.privateKey].filter((s): s is string => Boolean(s));
  const dir = await mkdtemp(path.join(tmpdir(), 'portico-git-'));
  let proxy: EgressProxy | undefined;
  const close = async () => {
    await proxy?.close();
    await rm(dir, { recursive: true, force: true });
  };
  const file = async (name: string, content: string, mode = 0o600) => {
    const at = path.join(dir, name);
    await writeFile(at, content, { mode });
    await chmod(at, mode);
    return at;
  };
  try {
    const env = baseGitEnv(dir);
    const config: Array<[string, string]> = [
      ['credential.helper', ''],
      ['protocol.allow', 'never'],
      ['protocol.https.allow', 'always'],
      ['protocol.ssh.allow', 'always'],
    ];
    const connectSeconds = Math.max(1, Math.ceil(opts.timeoutMs / 1000));
    let gitUrl: string;
    if (url.transport === 'https') {
      proxy = await startEgressProxy(guard, { connectTimeoutMs: opts.timeoutMs });
      gitUrl = gitUrlOf(url);
      config.push(['http.proxy', proxy.url], ['http.lowSpeedLimit', '1'], ['http.lowSpeedTime', String(connectSeconds)]);
      if (c.caCert) config.push(['http.sslCAInfo', await file('ca.pem', asFile(c.caCert))]);
      if (c.tlsClientCert && c.tlsClientKey) {
        config.push(['http.sslCert', await file('client.pem', asFile(c.tlsClientCert))], ['http.sslKey', await file('client.key', asFile(c.tlsClientKey))]);
      }
      if (c.bearerToken) config.push(['http.extraHeader', `Authorization: Bearer ${c.bearerToken}`]);
      env.PORTICO_GIT_HOST = new URL(gitUrl).host;
      if (c.password) {
        env.GIT_ASKPASS = await file('askpass', askpassScript, 0o700);
        env.PORTICO_GIT_USERNAME = c.username || 'git';
        env.PORTICO_GIT_PASSWORD = c.password;
      } else if (c.username) {
        env.GIT_ASKPASS = await file('askpass', askpassScript, 0o700);
        env.PORTICO_GIT_USERNAME = c.username;
        env.PORTICO_GIT_PASSWORD = '';
      }
    } else {
      const address = await guard.resolve(url.host);
      gitUrl = gitUrlOf(url, address);
      const key = c.privateKey ? await file('id', asFile(c.privateKey)) : '/dev/null';
      const knownHosts = await file('known_hosts', c.knownHosts ? asFile(c.knownHosts) : '');
      env.GIT_SSH_COMMAND = [
        'ssh', '-F', '/dev/null', '-i', quote(key),
        '-o', 'IdentitiesOnly=yes', '-o', 'IdentityAgent=none', '-o', 'BatchMode=yes',
        '-o', 'PasswordAuthentication=no', '-o', 'KbdInteractiveAuthentication=no',
        '-o', 'StrictHostKeyChecking=yes', '-o', `UserKnownHostsFile=${quote(knownHosts)}`, '-o', 'GlobalKnownHostsFile=/dev/null',
        '-o', `HostKeyAlias=${quote(knownHostsName(url))}`, '-o', 'CheckHostIP=no', '-o', 'UpdateHostKeys=no',
        '-o', `ConnectTimeout=${connectSeconds}`, '-o', 'ServerAliveInterval=5', '-o', 'ServerAliveCountMax=2', '-o', 'LogLevel=ERROR',
      ].join(' ');
      env.GIT_SSH_VARIANT = 'ssh';
    }
    Object.assign(env, configEnv(config));
    return { gitUrl, env, refusals: () => proxy?.refusals ?? [], secrets, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Runs `fn` with a session and always cleans up after it. */
export async function withRemote<T>(remote: Remote, guard: HostGuard, opts: { timeoutMs: number }, fn: (session: RemoteSession) => Promise<T>): Promise<T> {
  const session = await openRemote(remote, guard, opts);
  try {
    return await fn(session);
  } finally {
    await session.close();
  }
}

/** `text` without any of the secret values (whole or per line of a multi-line key). */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    for (const piece of [secret, ...secret.split(/\r?\n/)]) {
      const trimmed = piece.trim();
      if (trimmed.length >= 4) out = out.split(trimmed).join('[redacted]');
    }
  }
  return out;
}
