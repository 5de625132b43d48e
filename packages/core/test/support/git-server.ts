import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { commitDirect, createBareRepo, gitIn, gitServiceUser, serverDir, setHook, type GitUser } from './git-server-files.js';
import { makePki, startHttpsGitServer, type HttpsGitServer, type TestPki } from './git-server-https.js';
import { makeKeyPair, startSshGitServer, type SshGitServer, type SshKeyPair } from './git-server-ssh.js';

const exec = promisify(execFile);

/**
 * Real Git servers on loopback for the repository tests: `git http-backend` behind HTTPS (Basic and Bearer
 * authentication, a CA of its own) and `sshd` with git-shell (key authentication, a host key of its own), both
 * serving the same bare repositories as an unprivileged user. Nothing here needs the internet.
 *
 *     const git = await startGitServer();
 *     const repo = await git.createRepo('deploys');
 *     const url = git.https.url('deploys.git');   // https://localhost:<port>/deploys.git
 */
export interface GitServer {
  user: GitUser;
  pki: TestPki;
  https: HttpsGitServer;
  ssh: SshGitServer;
  /** Basic-auth credentials and a bearer token the HTTPS server accepts. */
  username: string;
  password: string;
  token: string;
  /** A key sshd accepts, and one it does not. */
  clientKey: SshKeyPair;
  wrongKey: SshKeyPair;
  /** A bare repository `<name>.git` with a first commit on `branch`; answers its directory. */
  createRepo(name: string, branch?: string): Promise<string>;
  repoDir(name: string): string;
  httpsUrl(name: string, host?: string): string;
  sshUrl(name: string, host?: string): string;
  /** A commit made on the server by someone else. */
  outsideCommit(name: string, branch: string, file: string, content: string | undefined, message?: string): Promise<string>;
  /** The file on the branch tip, read from the bare repository; undefined when absent. */
  fileAt(name: string, branch: string, file: string): Promise<string | undefined>;
  /** Subjects on the branch, newest first. */
  subjects(name: string, branch: string): Promise<string[]>;
  /** `git log -1` of the branch: sha, author, subject, body. */
  lastCommit(name: string, branch: string): Promise<{ sha: string; author: string; subject: string; body: string }>;
  /** A fresh clone over HTTPS (as a GitOps controller would take it); its working tree directory. */
  freshClone(name: string, branch: string): Promise<string>;
  setHook(name: string, hook: string, script: string | undefined): Promise<void>;
  close(): Promise<void>;
}

export async function startGitServer(): Promise<GitServer> {
  const user = gitServiceUser();
  const work = await mkdtemp(path.join(tmpdir(), 'portico-git-test-'));
  const root = await serverDir(user, 'portico-git-repos-');
  const sshDir = await serverDir(user, 'portico-git-sshd-');
  const pki = await makePki(work);
  const username = 'deployer';
  const password = `pw-${randomBytes(9).toString('base64url')}`;
  const token = `tok-${randomBytes(12).toString('base64url')}`;
  const clientKey = await makeKeyPair(work, 'client');
  const wrongKey = await makeKeyPair(work, 'wrong');
  const https = await startHttpsGitServer({ pki, user, root, users: { [username]: password }, tokens: [token] });
  const ssh = await startSshGitServer({ user, dir: sshDir, authorizedKeys: [clientKey.publicKey] });
  const repoDir = (name: string) => path.join(root, `${name}.git`);
  const clones: string[] = [];

  return {
    user, pki, https, ssh, username, password, token, clientKey, wrongKey,
    createRepo: (name, branch = 'main') => createBareRepo(user, root, `${name}.git`, branch),
    repoDir,
    httpsUrl: (name, host) => https.url(`${name}.git`, host),
    sshUrl: (name, host) => ssh.url(repoDir(name), host),
    outsideCommit: (name, branch, file, content, message = `Outside change of ${file}`) => commitDirect(user, repoDir(name), branch, file, content, message),
    async fileAt(name, branch, file) {
      const listed = await gitIn(repoDir(name), ['ls-tree', `refs/heads/${branch}`, '--', file]);
      return listed.trim() ? gitIn(repoDir(name), ['show', `refs/heads/${branch}:${file}`]) : undefined;
    },
    async subjects(name, branch) {
      return (await gitIn(repoDir(name), ['log', '--format=%s', `refs/heads/${branch}`])).split('\n').filter(Boolean);
    },
    async lastCommit(name, branch) {
      const [sha, author, subject, ...body] = (await gitIn(repoDir(name), ['log', '-1', '--format=%H%n%an <%ae>%n%s%n%b', `refs/heads/${branch}`])).split('\n');
      return { sha: sha!, author: author!, subject: subject!, body: body.join('\n').trim() };
    },
    async freshClone(name, branch) {
      const into = await mkdtemp(path.join(work, 'clone-'));
      clones.push(into);
      await rm(into, { recursive: true, force: true });
      const caFile = path.join(work, 'ca.pem');
      await exec('git', ['clone', '-q', '--branch', branch, https.url(`${name}.git`), into], {
        env: {
          PATH: process.env.PATH ?? '', HOME: work, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0',
          GIT_CONFIG_COUNT: '2', GIT_CONFIG_KEY_0: 'http.sslCAInfo', GIT_CONFIG_VALUE_0: caFile,
          GIT_CONFIG_KEY_1: 'http.extraHeader', GIT_CONFIG_VALUE_1: `Authorization: Bearer ${token}`,
        },
      });
      return into;
    },
    setHook: (name, hook, script) => setHook(user, repoDir(name), hook, script),
    async close() {
      await https.stop();
      await ssh.stop();
      for (const dir of [work, root, sshDir]) await rm(dir, { recursive: true, force: true });
    },
  };
}

export const readCloned = (clone: string, file: string) => readFile(path.join(clone, file), 'utf8').catch(() => undefined);
