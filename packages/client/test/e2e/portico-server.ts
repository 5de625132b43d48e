import { createClient, loginLocal } from '@portico/client';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the server runs from there, as `npm start` does, so `examples/catalog` is found. */
export const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/** The built server bin (`npm test` builds first; or `npm run build`). */
export const serverBin = join(repoRoot, 'packages/server/dist/bin.js');

export interface PorticoProcess {
  /** e.g. `http://127.0.0.1:41234`. */
  url: string;
  adminPassword: string;
  /** Everything the process printed so far (JSON log lines on stdout, start-up errors on stderr). */
  output(): string;
  /** SIGTERM, wait for the exit (SIGKILL after 10 s), remove the data directory. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Extra or overriding environment variables. */
  env?: Record<string, string>;
  /** How long to wait for the "listening" log line (and for the catalog, see below). */
  startTimeoutMs?: number;
  /** Wait until every catalog RGD is Active (default true). */
  waitForCatalog?: boolean;
}

/** The `url` of the "Portico listening" JSON log line, once it has been printed. */
function listeningUrl(stdout: string): string | undefined {
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { url?: unknown; msg?: unknown };
      if (typeof entry.url === 'string' && typeof entry.msg === 'string' && entry.msg.startsWith('Portico listening')) return entry.url;
    } catch {
      // a partial line: the rest comes with the next chunk
    }
  }
  return undefined;
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

/**
 * Starts the real server (`node packages/server/dist/bin.js`) in the development profile: embedded cluster in a
 * fresh data directory, in-memory key-value store, the example catalog, a known admin password, a fast simulated
 * kro controller, rate limits off (a test suite signs in more often than 5 times a minute from one address).
 */
export async function startPorticoServer(opts: StartOptions = {}): Promise<PorticoProcess> {
  if (!existsSync(serverBin)) throw new Error(`${serverBin} is missing: run npm run build first`);
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-e2e-'));
  const adminPassword = `e2e-${randomBytes(12).toString('hex')}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    PORTICO_PROFILE: 'development',
    SERVER_ADDRESS: '127.0.0.1:0',
    PORTICO_DATA_DIR: dataDir,
    ADMIN_PASSWORD: adminPassword,
    PORTICO_KRO_STEP_MS: '50',
    PORTICO_RATE_LIMITS: '0',
    LOG_LEVEL: 'info',
    ...opts.env,
  };
  const child = spawn(process.execPath, [serverBin], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const output = () => `${stdout}${stderr}`;

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited(child);
      clearTimeout(killer);
    }
    await rm(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (opts.startTimeoutMs ?? 30_000);
  const fail = async (why: string) => {
    await stop();
    return new Error(`the Portico server ${why} (exit ${child.exitCode}):\n${output().slice(-4000)}`);
  };
  let url: string | undefined;
  while (!(url = listeningUrl(stdout))) {
    if (child.exitCode !== null || Date.now() > deadline) throw await fail('did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  if (opts.waitForCatalog !== false && !(await catalogActive(url, adminPassword, deadline))) throw await fail('never had its whole catalog Active');
  return { url, adminPassword, output, stop };
}

/**
 * kro marks RGDs Active asynchronously, and an Inactive RGD refuses instances (409): tests that create instances
 * at once wait for the whole catalog, as a user would wait for kro after installing an RGD.
 */
async function catalogActive(url: string, adminPassword: string, deadline: number): Promise<boolean> {
  const { token } = await loginLocal(url, 'admin', adminPassword);
  const client = createClient({ baseUrl: url, token });
  for (;;) {
    const { items } = await client.rgds.list({ pageSize: 500 });
    if (items.length > 0 && items.every((r) => r.status === 'Active')) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}
