import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL, dropSchema, uniqueSchema } from './support/db.js';
import { exampleKeysFile } from './support/license.js';

// portico-server-enterprise as users run it: the BUILT bin in a subprocess (npm test builds first).
const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const root = fileURLToPath(new URL('../../../', import.meta.url));

interface Bin {
  exited: Promise<number | null>;
  out(): string;
  err(): string;
  stop(): Promise<number | null>;
}

function runBin(env: Record<string, string>): Bin {
  const child = spawn(process.execPath, [bin], { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { exited, out: () => stdout, err: () => stderr, stop: () => (child.kill('SIGTERM'), exited) };
}

async function listening(p: Bin, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const url = /Portico Enterprise listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(p.out())?.[1];
    if (url) return url;
    if (Date.now() > deadline) throw new Error(`no listening line; stdout: ${p.out().slice(-2000)} stderr: ${p.err()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function readyz(url: string, want: number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${url}/readyz`);
    const body = (await res.json()) as { status: string; components: Record<string, { ok: boolean; message?: string }> };
    if (res.status === want) return { status: res.status, body, retryAfter: res.headers.get('retry-after') };
    if (Date.now() > deadline) throw new Error(`/readyz stayed ${res.status}: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const dirs: string[] = [];
const schemas: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  for (const schema of schemas) await dropSchema(schema);
});

async function envFor(schema: string, databaseUrl = TEST_DATABASE_URL): Promise<Record<string, string>> {
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-ee-bin-'));
  dirs.push(dataDir);
  return {
    PORTICO_PROFILE: 'development',
    PORTICO_DATA_DIR: dataDir,
    PORTICO_MANIFESTS: 'examples/catalog,deploy/crds/category.yaml',
    SERVER_ADDRESS: '127.0.0.1:0',
    ADMIN_PASSWORD: 'bin-test-admin',
    LOG_LEVEL: 'info',
    DATABASE_URL: databaseUrl,
    PORTICO_DB_SCHEMA: schema,
    PORTICO_LICENSE_KEYS: exampleKeysFile,
  };
}

describe('portico-server-enterprise (built bin)', () => {
  it('without DATABASE_URL it exits non-zero naming the variable', async () => {
    const env = await envFor(uniqueSchema('bin'));
    delete env.DATABASE_URL;
    const p = runBin(env);
    expect(await p.exited).not.toBe(0);
    expect(p.err()).toMatch(/DATABASE_URL/);
  });

  it('two replicas starting at the same moment on an empty schema both come up ready, and each migration ran once', async () => {
    const schema = uniqueSchema('bin');
    schemas.push(schema);
    const [a, b] = [runBin(await envFor(schema)), runBin(await envFor(schema))];
    try {
      const urls = await Promise.all([listening(a), listening(b)]);
      for (const url of urls) {
        const ready = await readyz(url, 200);
        expect(ready.body.components.postgres).toEqual({ ok: true });
      }
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      try {
        const { rows } = await client.query(`SELECT name, count(*)::int AS n FROM "${schema}".pgmigrations GROUP BY name`);
        expect(rows.length).toBeGreaterThanOrEqual(2);
        expect(rows.every((r) => r.n === 1)).toBe(true);
      } finally {
        await client.end();
      }
      // The license route is served by the Enterprise build (the OSS build answers 402 here).
      const login = await fetch(`${urls[0]}/api/v1/auth/local/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'bin-test-admin' }) });
      const { token } = (await login.json()) as { token: string };
      const license = await fetch(`${urls[0]}/api/v1/license`, { headers: { authorization: `Bearer ${token}` } });
      expect(license.status).toBe(200);
      expect(await license.json()).toMatchObject({ enterprise: true, status: 'missing' });
    } finally {
      expect(await a.stop()).toBe(0);
      expect(await b.stop()).toBe(0);
    }
  });

  it('serves Prometheus metrics on METRICS_ADDRESS like the OSS server, with the Enterprise routes counted', async () => {
    const schema = uniqueSchema('bin');
    schemas.push(schema);
    const p = runBin({ ...(await envFor(schema)), METRICS_ADDRESS: '127.0.0.1:0' });
    try {
      const url = await listening(p);
      const metricsUrl = /Prometheus metrics at (http:\/\/[^\s"]+)\/metrics/.exec(p.out())?.[1];
      expect(metricsUrl, p.out().slice(-2000)).toBeDefined();
      await readyz(url, 200);
      expect((await fetch(`${url}/api/v1/license`)).status).toBe(401);
      const text = await (await fetch(`${metricsUrl}/metrics`)).text();
      expect(text).toMatch(/^portico_http_requests_total\{.*\} [1-9]/m);
    } finally {
      expect(await p.stop()).toBe(0);
    }
  });

  it('an unreachable database fails readiness naming postgres, not liveness', async () => {
    const p = runBin(await envFor(uniqueSchema('bin'), 'postgres://postgres@127.0.0.1:1/test'));
    try {
      const url = await listening(p);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const ready = await readyz(url, 503);
      expect(ready.body.components.postgres.ok).toBe(false);
      expect(ready.body.components.postgres.message).toMatch(/ECONNREFUSED|connect/i);
      expect(ready.retryAfter).toMatch(/^\d+$/);
    } finally {
      await p.stop();
    }
  });
});
