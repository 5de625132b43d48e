import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listeningUrl, runBin, stop, type BinProcess } from './support/bin.js';
import { sampleCatalog } from './support/portico.js';

/**
 * Against the built bin: a development data dir is used by one process at a time, so a second server (the OSS
 * and the Enterprise development servers on one folder) or `admin reset-password` beside a running server is
 * refused before it reads or writes anything.
 */
const started: BinProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const p of started.splice(0)) p.child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const adminPassword = 'lock-test-admin-password';

function start(dataDir: string, args: string[] = [], stdin?: string) {
  const p = runBin(
    { PORTICO_PROFILE: 'development', SERVER_ADDRESS: '127.0.0.1:0', PORTICO_DATA_DIR: dataDir, PORTICO_MANIFESTS: sampleCatalog, ADMIN_PASSWORD: adminPassword, LOG_LEVEL: 'info' },
    args,
    stdin,
  );
  started.push(p);
  return p;
}

const loginStatus = async (url: string, password: string) =>
  (await fetch(`${url}/api/v1/auth/local/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password }) })).status;

const inUse = (dataDir: string, pid: number) =>
  new RegExp(
    `data dir ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by another Portico process \\(pid ${pid}, started [^)]+\\); stop it, or give this server its own PORTICO_DATA_DIR\\. If no Portico process is running, delete .*portico\\.lock\\.\\n$`,
  );

describe('portico-server: one process per data dir', () => {
  it('a second server and admin reset-password on the data dir of a running server exit 1 naming its pid; once it stops, both work', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'portico-bin-lock-'));
    dirs.push(dataDir);
    const first = start(dataDir);
    const url = await listeningUrl(first);

    const second = start(dataDir);
    expect(await Promise.race([second.exited, listeningUrl(second).then(() => 'listening as well')])).toBe(1);
    expect(second.err()).toMatch(new RegExp(`^portico-server: failed to start: ${inUse(dataDir, first.child.pid!).source}`));
    expect(second.out()).not.toContain('listening');

    const reset = start(dataDir, ['admin', 'reset-password', '--password-stdin'], 'a-password-written-behind-its-back\n');
    expect(await reset.exited).toBe(1);
    expect(reset.err()).toMatch(new RegExp(`^portico-server: ${inUse(dataDir, first.child.pid!).source}`));
    // The running server was not written behind: its password is still the one it started with.
    expect(await loginStatus(url, adminPassword)).toBe(200);

    expect(await stop(first)).toBe(0);
    expect(await readdir(dataDir)).not.toContain('portico.lock');
    const chosen = 'a-password-set-while-stopped';
    const resetAfter = start(dataDir, ['admin', 'reset-password', '--password-stdin'], `${chosen}\n`);
    expect(await resetAfter.exited).toBe(0);
    const third = start(dataDir);
    expect(await loginStatus(await listeningUrl(third), chosen)).toBe(200);
    expect(await stop(third)).toBe(0);
  }, 120_000);
});
