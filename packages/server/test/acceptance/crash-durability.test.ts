import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { apiAs } from '../support/api-as.js';
import { listeningUrl, runBin, type BinProcess } from '../support/bin.js';
import { login } from '../support/portico.js';

/**
 * Issue 13, acceptance 3, against the built bin: a kill -9 during the first load of manifests, or during a burst of
 * writes, loses nothing that was acknowledged, and the restart finds a clean data dir (no temp files left).
 */
const started: BinProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const p of started.splice(0)) p.child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const adminPassword = 'crash-test-admin-password';

async function tempDir(prefix: string) {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

function start(dataDir: string, manifests: string) {
  const p = runBin({
    PORTICO_PROFILE: 'development',
    SERVER_ADDRESS: '127.0.0.1:0',
    PORTICO_DATA_DIR: dataDir,
    PORTICO_MANIFESTS: manifests,
    PORTICO_KV: 'memory',
    PORTICO_RATE_LIMITS: '0',
    ADMIN_PASSWORD: adminPassword,
    LOG_LEVEL: 'info',
  });
  started.push(p);
  return p;
}

async function kill9(p: BinProcess) {
  p.child.kill('SIGKILL');
  await p.exited;
}

/** Projects as manifests: `count` of them, named `<prefix>-<i>`. */
async function projectManifests(dir: string, prefix: string, count: number) {
  const docs = Array.from({ length: count }, (_, i) =>
    JSON.stringify({ apiVersion: 'portico.dev/v1alpha1', kind: 'Project', metadata: { name: `${prefix}-${i}`, namespace: 'portico' }, spec: { description: `loaded ${i}`, destinations: [{ namespace: 'dev' }], roles: [] } }),
  );
  await writeFile(join(dir, 'projects.yaml'), docs.map((d) => `---\n${d}\n`).join(''));
}

const projectNames = async (url: string) => {
  const res = await apiAs(url, await login(url, 'admin', adminPassword)).get<{ items: { name: string }[] }>('/api/v1/projects');
  expect(res.status).toBe(200);
  return new Set(res.body.items.map((p) => p.name));
};

const tempFilesUnder = async (dir: string): Promise<string[]> =>
  (await readdir(dir, { recursive: true })).filter((f) => String(f).endsWith('.tmp')).map(String);

describe('issue 13 / acceptance 3: kill -9 loses nothing acknowledged', () => {
  it('killed during the first load of manifests, the next start loads everything and is consistent', async () => {
    const manifests = await tempDir('portico-crash-manifests-');
    const dataDir = await tempDir('portico-crash-data-');
    await projectManifests(manifests, 'loaded', 400);
    const first = start(dataDir, manifests);
    // Kill as soon as the load has begun writing (the data dir exists), before the server is ready.
    for (let i = 0; i < 400 && !first.out().includes('embedded cluster started'); i++) {
      if ((await readdir(dataDir).catch((): string[] => [])).includes('journal.ndjson')) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    await kill9(first);

    const second = start(dataDir, manifests);
    const url = await listeningUrl(second);
    const names = await projectNames(url);
    for (let i = 0; i < 400; i++) expect(names.has(`loaded-${i}`)).toBe(true);
    expect(await tempFilesUnder(dataDir)).toEqual([]);
  }, 90_000);

  it('killed during a burst of writes, every acknowledged write is there after the restart', async () => {
    const manifests = await tempDir('portico-crash-manifests-');
    const dataDir = await tempDir('portico-crash-data-');
    await projectManifests(manifests, 'seed', 1);
    const first = start(dataDir, manifests);
    const url = await listeningUrl(first);
    const admin = apiAs(url, await login(url, 'admin', adminPassword));

    // 16 writers creating projects as fast as the server acknowledges them; kill -9 in the middle of it.
    const acknowledged: string[] = [];
    let stop = false;
    let n = 0;
    const writer = async () => {
      while (!stop) {
        const name = `burst-${n++}`;
        const res = await admin.post('/api/v1/projects', { name, destinations: [{ namespace: 'dev' }] }).catch(() => undefined);
        if (res?.status === 201) acknowledged.push(name);
      }
    };
    const writers = Array.from({ length: 16 }, writer);
    while (acknowledged.length < 150) await new Promise((r) => setTimeout(r, 5));
    await kill9(first);
    stop = true;
    await Promise.all(writers);
    expect(acknowledged.length).toBeGreaterThanOrEqual(150);

    const second = start(dataDir, manifests);
    const names = await projectNames(await listeningUrl(second));
    expect(acknowledged.filter((name) => !names.has(name))).toEqual([]);
    expect(names.has('seed-0')).toBe(true);
    expect(await tempFilesUnder(dataDir)).toEqual([]);
  }, 90_000);
});
