import { execFile, spawn } from 'node:child_process';
import { chmod, chown, mkdtemp, readdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { readFileSync } from 'node:fs';

/**
 * The local side of the test Git servers: who serves (an unprivileged user), where the bare repositories live,
 * and plumbing on them that plays "someone else" (an outside commit, a hook). Root runs the servers as the
 * `portico-git` user (login shell git-shell; `.ci/run` creates it); anyone else serves as themselves.
 */
export interface GitUser {
  name: string;
  uid: number;
  gid: number;
  /** Its login shell: git-shell takes commands itself; any other shell needs a forced command. */
  shell: string;
}

export const GIT_SERVICE_USER = 'portico-git';

export function gitServiceUser(): GitUser {
  const me = userInfo();
  const wanted = me.uid === 0 ? GIT_SERVICE_USER : me.username;
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith(`${wanted}:`));
  if (!line) throw new Error(`user "${wanted}" is missing: run .ci/run (it creates ${GIT_SERVICE_USER} with git-shell as its shell)`);
  const [name, , uid, gid, , , shell] = line.split(':');
  return { name: name!, uid: Number(uid), gid: Number(gid), shell: shell ?? '/bin/sh' };
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command as the serving user (when root) with a clean environment; never throws. */
export function runAs(user: GitUser, command: string, args: string[], opts: { cwd?: string; input?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const asOther = userInfo().uid === 0 && user.uid !== 0;
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LANG: 'C', ...opts.env },
      ...(asOther ? { uid: user.uid, gid: user.gid } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', (e) => resolve({ code: 127, stdout, stderr: stderr + e.message }));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
  });
}

export async function mustRun(user: GitUser, command: string, args: string[], opts: { cwd?: string; input?: string; env?: Record<string, string> } = {}): Promise<string> {
  const result = await runAs(user, command, args, opts);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return result.stdout.trim();
}

/** A fresh private directory the serving user owns (readable by the test process, which is root or that user). */
export async function serverDir(user: GitUser, prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  await chmod(dir, 0o755);
  await handOver(user, dir);
  return dir;
}

/** Gives a file or a whole tree to the serving user (a no-op when the test runs as that user). */
export async function handOver(user: GitUser, target: string): Promise<void> {
  if (userInfo().uid !== 0) return;
  await chown(target, user.uid, user.gid);
  if ((await stat(target)).isDirectory()) for (const entry of await readdir(target)) await handOver(user, path.join(target, entry));
}

export async function writeOwned(user: GitUser, file: string, content: string, mode = 0o644): Promise<void> {
  await writeFile(file, content, { mode });
  await chmod(file, mode);
  await handOver(user, file);
}

/** A bare repository with one commit on `branch` (a README), as the serving user. */
export async function createBareRepo(user: GitUser, root: string, name: string, branch = 'main'): Promise<string> {
  const dir = path.join(root, name);
  await mustRun(user, 'git', ['init', '-q', '--bare', '-b', branch, dir]);
  await mustRun(user, 'git', ['-C', dir, 'config', 'receive.denyNonFastForwards', 'true']);
  await mustRun(user, 'git', ['-C', dir, 'config', 'gc.auto', '0']);
  await commitDirect(user, dir, branch, 'README.md', `# ${name}\n`, 'Initial commit');
  return dir;
}

const plumbingEnv = { GIT_AUTHOR_NAME: 'Someone Else', GIT_AUTHOR_EMAIL: 'else@example.com', GIT_COMMITTER_NAME: 'Someone Else', GIT_COMMITTER_EMAIL: 'else@example.com' };

/**
 * A commit made straight in the bare repository (someone pushing from outside Portico): the file set to
 * `content` (removed when undefined) on top of the branch, the ref moved only if nobody moved it meanwhile.
 */
export async function commitDirect(user: GitUser, repo: string, branch: string, file: string, content: string | undefined, message: string): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const tip = (await runAs(user, 'git', ['-C', repo, 'rev-parse', '--verify', '-q', `refs/heads/${branch}`])).stdout.trim();
    const index = path.join(repo, `outside-index-${process.pid}-${attempt}-${Math.random().toString(36).slice(2)}`);
    const env = { ...plumbingEnv, GIT_INDEX_FILE: index };
    if (tip) await mustRun(user, 'git', ['-C', repo, 'read-tree', tip], { env });
    else await mustRun(user, 'git', ['-C', repo, 'read-tree', '--empty'], { env });
    if (content === undefined) await mustRun(user, 'git', ['-C', repo, 'update-index', '--force-remove', file], { env });
    else {
      const blob = await mustRun(user, 'git', ['-C', repo, 'hash-object', '-w', '--stdin'], { input: content });
      await mustRun(user, 'git', ['-C', repo, 'update-index', '--add', '--cacheinfo', `100644,${blob},${file}`], { env });
    }
    const tree = await mustRun(user, 'git', ['-C', repo, 'write-tree'], { env });
    await runAs(user, 'rm', ['-f', index]);
    const commit = await mustRun(user, 'git', ['-C', repo, 'commit-tree', tree, ...(tip ? ['-p', tip] : []), '-m', message], { env: plumbingEnv });
    const moved = await runAs(user, 'git', ['-C', repo, 'update-ref', `refs/heads/${branch}`, commit, tip || '0'.repeat(40)]);
    if (moved.code === 0) return commit;
  }
  throw new Error(`could not commit to ${repo} ${branch}: the branch kept moving`);
}

/** Reads straight from the bare repository (a test's own look, not through a transport). */
export const gitIn = (repo: string, args: string[]) =>
  new Promise<string>((resolve, reject) =>
    execFile('git', ['-c', 'safe.directory=*', '-C', repo, ...args], { env: { PATH: process.env.PATH ?? '', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }, maxBuffer: 16 << 20 }, (err, stdout, stderr) =>
      err ? reject(new Error(`git ${args.join(' ')}: ${stderr}`)) : resolve(stdout),
    ),
  );

/** A hook script (`pre-receive`: exit 1 refuses every push), or none when `script` is undefined. */
export async function setHook(user: GitUser, repo: string, hook: string, script: string | undefined): Promise<void> {
  const file = path.join(repo, 'hooks', hook);
  if (script === undefined) await runAs(user, 'rm', ['-f', file]);
  else await writeOwned(user, file, script, 0o755);
}
