import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, openSync, closeSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** A PostgreSQL of one test's own, which the test may kill -9 without touching the shared one. */
export interface OwnPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust auth). */
  url: string;
  /** Kills the postmaster and every backend at once (SIGKILL to the process group): a crash, no shutdown. */
  kill(): Promise<void>;
  /** Starts it again on the same data directory (crash recovery replays the WAL) and waits until it answers. */
  start(): Promise<void>;
  /** Kills it and removes its files. */
  destroy(): Promise<void>;
}

const binDir = (): string => {
  const root = '/usr/lib/postgresql';
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'postgres'))).sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error(`no PostgreSQL binaries under ${root}`);
  return join(root, versions[0]!, 'bin');
};

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

/** PostgreSQL refuses to run as root: as root, its programs run as the `postgres` user. */
function asPostgres(command: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [command, args];
  return ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', command, ...args]];
}

async function answers(url: string, deadline: number): Promise<void> {
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 500 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => {});
      if (Date.now() > deadline) throw new Error(`the test's PostgreSQL did not answer: ${(error as Error).message}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = binDir();
  const dir = await mkdtemp(join(tmpdir(), 'portico-own-pg-'));
  const data = join(dir, 'data');
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const [initdb, initArgs] = asPostgres(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync']);
  execFileSync(initdb, initArgs, { stdio: 'ignore' });
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let postmaster: ChildProcess | undefined;

  const start = async () => {
    const log = openSync(join(dir, 'postgres.log'), 'a');
    const [command, args] = asPostgres(join(bin, 'postgres'), [
      '-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=40', '-c', 'shared_buffers=16MB',
      // A killed process loses nothing the kernel already has (a commit has written its WAL), so fsync, which only
      // guards against the machine crashing, is left out; synchronous_commit stays on, so each commit writes first.
      '-c', 'fsync=off',
    ]);
    // Its own process group, so one signal reaches the postmaster and all its backends.
    postmaster = spawn(command, args, { detached: true, stdio: ['ignore', log, log] });
    closeSync(log);
    await answers(url, Date.now() + 30_000);
  };
  const kill = async () => {
    const child = postmaster;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-child.pid!, 'SIGKILL');
    await exited;
    // Backends die with their group; give the kernel a moment to release the port and shared memory.
    await new Promise((r) => setTimeout(r, 50));
  };
  await start();
  return {
    url,
    kill,
    start,
    async destroy() {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
