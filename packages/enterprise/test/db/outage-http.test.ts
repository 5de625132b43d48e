import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from '../../../server/test/outage/tcp-proxy.js';
import { eventually } from '../../../core/test/support/eventually.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../support/db.js';
import { issueLicense } from '../support/license.js';
import { startEnterpriseServer, type EnterpriseServer } from '../support/server.js';

/**
 * PostgreSQL going away at run time, through a TCP proxy between Portico and the database: the Enterprise
 * routes that need it answer 503 with Retry-After within 2 s, /readyz names postgres, liveness holds, and
 * everything recovers by itself once the database is back.
 */
describe('PostgreSQL down at run time', () => {
  const PG = new URL(TEST_DATABASE_URL);
  let proxy: TcpProxy;
  let db: TestDatabase;
  let ee: EnterpriseServer;
  const get = async (path: string) => {
    const started = Date.now();
    const res = await fetch(`${ee.url}${path}`, { headers: { authorization: `Bearer ${ee.adminToken}` } });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as any, ms: Date.now() - started };
  };

  beforeAll(async () => {
    proxy = await startTcpProxy({ host: PG.hostname, port: Number(PG.port || 5432) });
    const direct = await createTestDatabase();
    db = { ...direct, url: `postgres://${PG.username}@${proxy.address()}${PG.pathname}` };
    ee = await startEnterpriseServer({ mode: 'embedded', database: db, license: issueLicense({ features: ['views', 'categories'] }) });
    expect((await get('/api/v1/ee/views')).status).toBe(200);
    // Kept for the drop at the end, which goes around the proxy.
    db = direct;
  }, 90_000);
  afterAll(async () => {
    await ee?.close();
    await proxy?.close();
    await db?.drop();
  });

  it('views and the license status answer 503 with Retry-After within 2 s; categories (cluster) still serve', async () => {
    await proxy.cut();
    for (const path of ['/api/v1/ee/views', '/api/v1/license']) {
      const res = await get(path);
      expect(res.status, path).toBe(503);
      expect(res.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { component: 'postgres' } });
      expect(res.retryAfter).toMatch(/^\d+$/);
      expect(res.ms, path).toBeLessThan(2_000);
    }
    expect((await get('/api/v1/categories')).status).toBe(200);
    const health = await fetch(`${ee.url}/healthz`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${ee.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as any).components.postgres.ok).toBe(false);
  });

  it('recovers by itself once PostgreSQL is reachable again', async () => {
    await proxy.restore();
    await eventually(() => get('/api/v1/ee/views'), (r) => r.status === 200, 'views served again', { timeoutMs: 15_000, intervalMs: 200 });
    await eventually(async () => (await fetch(`${ee.url}/readyz`)).status, (s) => s === 200, 'ready again', { timeoutMs: 15_000, intervalMs: 200 });
  });
});
