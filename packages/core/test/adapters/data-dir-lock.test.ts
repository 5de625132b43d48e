import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedCluster } from '../../src/adapters/embedded-cluster/index.js';
import { createLogger } from '../../src/logger.js';
import { isPorticoError } from '../../src/errors.js';
import { resources } from '../../src/ports/cluster.js';
import { embeddedClusters } from '../support/embedded-clusters.js';
import { recordingLogger } from '../support/recording-logger.js';

/**
 * A data dir is used by one process at a time. The other process is a real one: a child opening the embedded
 * cluster from the built core (`dist/`), as a second server would.
 */
const coreDist = new URL('../../dist/index.js', import.meta.url).href;

const clusters = embeddedClusters('portico-lock-');
const { tempDir, stop } = clusters;
const start = (dataDir: string, logger = createLogger('silent')) => clusters.start({ dataDir, logger });

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/**
 * Another process on `dataDir`: opens the embedded cluster, writes Secret `from-child`, says "ready", then stays
 * (`stay`) or exits without closing the cluster (`exit`).
 */
async function otherProcess(dataDir: string, then: 'stay' | 'exit') {
  const script = `
    const { createEmbeddedCluster, resources } = await import(process.env.CORE);
    const cluster = await createEmbeddedCluster({ dataDir: process.env.DATA_DIR, kroStepMs: 5 });
    await cluster.create(resources.secret, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'from-child', namespace: 'default' }, data: {} });
    process.stdout.write('ready\\n');
    if (process.env.THEN === 'exit') process.exit(0);
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH ?? '', CORE: coreDist, DATA_DIR: dataDir, THEN: then },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const poll = setInterval(() => {
      if (out.includes('ready')) {
        clearInterval(poll);
        resolve();
      }
    }, 10);
    void exited.then((code) => {
      clearInterval(poll);
      if (out.includes('ready')) resolve();
      else reject(new Error(`the other process exited (${code}) before opening the data dir: ${err}`));
    });
  });
  return { pid: child.pid!, exited, kill: async () => (child.kill('SIGKILL'), exited) };
}

/** Every file in `dir` with its content. */
async function contents(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir, { recursive: true })).map(String).sort()) {
    out[name] = await readFile(path.join(dir, name), 'utf8').catch(() => '<folder>');
  }
  return out;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const lockOf = async (dataDir: string) => JSON.parse(await readFile(path.join(dataDir, 'portico.lock'), 'utf8')) as Record<string, unknown>;

describe('embedded cluster: one process per data dir', () => {
  it('refuses a data dir another running process holds, naming its pid, PORTICO_DATA_DIR and the lock file, and changes nothing in it', async () => {
    const dataDir = await tempDir();
    const other = await otherProcess(dataDir, 'stay');
    // What a start would repair (and so change) if it went ahead: a temp file of an interrupted write.
    await writeFile(path.join(dataDir, '.snapshot.ndjson.1234.tmp'), 'half-written');
    const before = await contents(dataDir);

    const refusal = await createEmbeddedCluster({ dataDir }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isPorticoError(refusal) && refusal.code).toBe('CONFLICT');
    expect((refusal as Error).message).toMatch(
      new RegExp(
        `^data dir ${escape(dataDir)} is in use by another Portico process \\(pid ${other.pid}, started \\d{4}-\\d\\d-\\d\\dT[^)]+\\); ` +
          `stop it, or give this server its own PORTICO_DATA_DIR\\. If no Portico process is running, delete ${escape(path.join(dataDir, 'portico.lock'))}\\.$`,
      ),
    );
    expect(await contents(dataDir)).toEqual(before);
    expect((await lockOf(dataDir)).pid).toBe(other.pid);
  });

  it('takes over the lock of a process killed without a chance to release it, keeping what it wrote, with an info log', async () => {
    const dataDir = await tempDir();
    const other = await otherProcess(dataDir, 'stay');
    await other.kill();
    expect((await lockOf(dataDir)).pid).toBe(other.pid);

    const { logger, lines } = recordingLogger();
    const cluster = await start(dataDir, logger);
    expect(await cluster.get(resources.secret, 'from-child', 'default')).toBeDefined();
    expect((await lockOf(dataDir)).pid).toBe(process.pid);
    expect(lines.find((l) => l.msg.includes('taking over the lock'))).toMatchObject({ level: 30, msg: expect.stringContaining('no longer running') });
  });

  it('takes over a lock naming a live process of another host, with a warning, as that process cannot be checked', async () => {
    const dataDir = await tempDir();
    await writeFile(path.join(dataDir, 'portico.lock'), JSON.stringify({ pid: process.ppid, hostname: `not-${hostname()}`, startedAt: new Date().toISOString(), id: 'x' }));
    const { logger, lines } = recordingLogger();
    await start(dataDir, logger);
    expect(lines.find((l) => l.msg.includes('taking over the lock'))).toMatchObject({ level: 40 });
    expect(await lockOf(dataDir)).toMatchObject({ pid: process.pid, hostname: hostname() });
  });

  it('releases the lock when closed, so another process opens the data dir next', async () => {
    const dataDir = await tempDir();
    const cluster = await start(dataDir);
    await cluster.create(resources.secret, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'from-parent', namespace: 'default' }, data: {} });
    expect((await lockOf(dataDir)).pid).toBe(process.pid);
    await stop(cluster);
    expect(await readdir(dataDir)).not.toContain('portico.lock');

    const other = await otherProcess(dataDir, 'stay');
    expect((await lockOf(dataDir)).pid).toBe(other.pid);
  });

  it('releases the lock when its process exits without closing the cluster', async () => {
    const dataDir = await tempDir();
    const other = await otherProcess(dataDir, 'exit');
    expect(await other.exited).toBe(0);
    expect(await readdir(dataDir)).not.toContain('portico.lock');
  });

  it('a cluster reopened in the same process without closing (a simulated crash) takes the lock over; closing the older one leaves it', async () => {
    const dataDir = await tempDir();
    const crashed = await start(dataDir);
    await crashed.create(resources.secret, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'before-crash', namespace: 'default' }, data: {} });
    const reopened = await start(dataDir);
    expect(await reopened.get(resources.secret, 'before-crash', 'default')).toBeDefined();
    const lock = await lockOf(dataDir);
    await stop(crashed);
    expect(await lockOf(dataDir)).toEqual(lock);
    await stop(reopened);
    expect(await readdir(dataDir)).not.toContain('portico.lock');
  });
});
