import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { handOver, writeOwned, type GitUser } from './git-server-files.js';

const exec = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface SshKeyPair {
  privateKey: string;
  publicKey: string;
}

export async function makeKeyPair(dir: string, name: string): Promise<SshKeyPair> {
  const file = path.join(dir, name);
  await exec('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file]);
  return { privateKey: await readFile(file, 'utf8'), publicKey: (await readFile(`${file}.pub`, 'utf8')).trim() };
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('data', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/**
 * `sshd` on a free loopback port, run as the unprivileged serving user with its own host key, accepting only
 * the keys given, each restricted to git-shell (the user's login shell, or a forced command for a user with an
 * ordinary shell). `knownHosts` holds the host key under `[127.0.0.1]:port` and `[localhost]:port`.
 */
export interface SshGitServer {
  readonly port: number;
  readonly user: string;
  readonly knownHosts: string;
  url(repoDir: string, host?: string): string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startSshGitServer(opts: { user: GitUser; dir: string; authorizedKeys: readonly string[] }): Promise<SshGitServer> {
  const { user, dir } = opts;
  const hostKey = await makeKeyPair(dir, 'ssh_host_ed25519_key');
  const port = await freePort();
  const forced = path.basename(user.shell) === 'git-shell' ? '' : 'command="git-shell -c \\"$SSH_ORIGINAL_COMMAND\\"",';
  const restrictions = `${forced}no-port-forwarding,no-X11-forwarding,no-agent-forwarding,no-pty `;
  await writeOwned(user, path.join(dir, 'authorized_keys'), opts.authorizedKeys.map((k) => `${restrictions}${k}\n`).join(''), 0o600);
  await writeOwned(user, path.join(dir, 'sshd_config'), [
    `Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${path.join(dir, 'ssh_host_ed25519_key')}`, `PidFile ${path.join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`, 'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'UsePAM no',
    'StrictModes no', `AllowUsers ${user.name}`, 'PermitUserEnvironment no', 'AllowTcpForwarding no', 'X11Forwarding no', 'LogLevel ERROR', '',
  ].join('\n'));
  await handOver(user, dir);
  const hostPublic = hostKey.publicKey.split(' ').slice(0, 2).join(' ');
  const knownHosts = `[127.0.0.1]:${port} ${hostPublic}\n[localhost]:${port} ${hostPublic}\n`;
  let daemon: ChildProcess | undefined;

  const start = async () => {
    const asOther = userInfo().uid === 0 && user.uid !== 0;
    daemon = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', path.join(dir, 'sshd_config')], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      ...(asOther ? { uid: user.uid, gid: user.gid } : {}),
    });
    let log = '';
    daemon.stderr!.on('data', (c) => (log += c));
    for (let i = 0; i < 200; i++) {
      if (await accepts(port)) return;
      if (daemon.exitCode !== null) throw new Error(`sshd exited: ${log}`);
      await sleep(25);
    }
    throw new Error(`sshd did not listen on ${port}: ${log}`);
  };
  await start();
  return {
    port,
    user: user.name,
    knownHosts,
    url: (repoDir, host = '127.0.0.1') => `ssh://${user.name}@${host}:${port}${repoDir}`,
    start,
    async stop() {
      const running = daemon;
      daemon = undefined;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((r) => running.once('exit', r));
      running.kill('SIGTERM');
      await exited;
    },
  };
}
