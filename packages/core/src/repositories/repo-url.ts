import { isIP } from 'node:net';
import { repoUrlTransport } from '@portico/api';
import { badRequest } from '../errors.js';

/**
 * A repository URL taken apart: `https://host[:port]/path`, `ssh://[user@]host[:port]/path` or the scp-like
 * `user@host:path`. Git is always handed a URL rebuilt from these parts, so what it connects to is what was checked.
 */
export interface RepoUrl {
  transport: 'https' | 'ssh';
  /** Host name or address as written (IPv6 without brackets), lower-cased. */
  host: string;
  port: number;
  /** SSH user (`git` in `git@host:path`); '' when the URL names none. */
  user: string;
  /** https and ssh://: the absolute path; scp-like: the path as written (relative to the user's home). */
  path: string;
  scpLike: boolean;
}

const bracket = (host: string) => (isIP(host) === 6 ? `[${host}]` : host);

export function parseRepoUrl(value: string): RepoUrl {
  const checked = repoUrlTransport(value);
  if (!checked.ok) throw badRequest(`repoURL ${checked.reason}`, { field: 'repoURL' });
  const scp = /^([^@]+)@(\[[^\]]+\]|[^:]+):(.+)$/.exec(value);
  if (checked.transport === 'ssh' && scp && !value.startsWith('ssh://')) {
    return { transport: 'ssh', host: scp[2]!.replace(/^\[|\]$/g, '').toLowerCase(), port: 22, user: scp[1]!, path: scp[3]!, scpLike: true };
  }
  const url = new URL(value);
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port ? Number(url.port) : checked.transport === 'https' ? 443 : 22;
  return { transport: checked.transport, host, port, user: decodeURIComponent(url.username), path: decodeURIComponent(url.pathname), scpLike: false };
}

/** The URL git is given, with `address` (a checked address) in place of the host name when set (SSH pins it). */
export function gitUrlOf(url: RepoUrl, address?: string): string {
  const host = bracket(address ?? url.host);
  if (url.scpLike) return `${url.user}@${host}:${url.path}`;
  const user = url.user ? `${encodeURIComponent(url.user)}@` : '';
  const defaultPort = url.transport === 'https' ? 443 : 22;
  const port = url.port === defaultPort ? '' : `:${url.port}`;
  const path = url.path.split('/').map(encodeURIComponent).join('/');
  return `${url.transport}://${user}${host}${port}${path}`;
}

/** The name a known_hosts line gives this server: `host`, or `[host]:port` off port 22 (what HostKeyAlias must say). */
export const knownHostsName = (url: RepoUrl) => (url.port === 22 ? url.host : `[${url.host}]:${url.port}`);

/**
 * Where a browser shows a commit, for hosts that follow the common `<repository>/commit/<sha>` layout (GitHub,
 * GitLab, Gitea, Bitbucket Server's redirects); the SSH forms map to the same host's https pages.
 */
export function commitUrlOf(value: string, sha: string): string | undefined {
  let url: RepoUrl;
  try {
    url = parseRepoUrl(value);
  } catch {
    return undefined;
  }
  const repoPath = url.path.replace(/^\/*/, '').replace(/\.git$/, '').replace(/\/+$/, '');
  if (!repoPath) return undefined;
  const port = url.transport === 'https' && url.port !== 443 ? `:${url.port}` : '';
  return `https://${bracket(url.host)}${port}/${repoPath}/commit/${sha}`;
}
