import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from '../../../server/test/outage/tcp-proxy.js';
import { startAuditStack, type AuditStack } from './stack.js';

const PG = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');

/**
 * Acceptance 4: PostgreSQL goes away mid-run (a TCP proxy between Portico and the database is cut). Audited
 * mutations are refused with 503 and change nothing, reads of OSS data keep working, and once the proxy is
 * back mutations work again without a restart. Meanwhile a writer keeps mutating: every mutation that was
 * acknowledged (2xx) is in the trail, and no intent is left unsettled.
 */
describe('acceptance 4: PostgreSQL down mid-run — fail closed, recover without a restart', () => {
  let proxy: TcpProxy;
  let stack: AuditStack;
  let token: string;

  beforeAll(async () => {
    proxy = await startTcpProxy({ host: PG.hostname, port: Number(PG.port || 5432) });
    stack = await startAuditStack({ databaseUrl: `postgres://${PG.username}@${proxy.address()}${PG.pathname}` });
    token = await stack.login('admin', stack.adminPassword);
  });
  afterAll(async () => {
    await stack?.close();
    await proxy?.close();
  });

  const send = (method: string, path: string, body?: unknown) =>
    fetch(`${stack.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });

  it('refuses mutations with 503 while keeping OSS reads, then recovers; nothing acknowledged is missing', async () => {
    const acknowledged: string[] = [];
    let writing = true;
    // A steady writer for the whole run: bind and unbind one user, keeping the request id of every 2xx.
    const writer = (async () => {
      for (let k = 0; writing; k++) {
        const method = k % 2 === 0 ? 'POST' : 'DELETE';
        const res = await send(method, '/api/v1/projects/default/roles/viewer/users/walter').catch(() => undefined);
        if (res && res.status < 300) acknowledged.push(res.headers.get('x-request-id') ?? '');
        await res?.arrayBuffer();
        await new Promise((r) => setTimeout(r, 20));
      }
    })();

    expect((await send('POST', '/api/v1/projects', { name: 'before-cut' })).status).toBe(201);
    await proxy.cut();

    const started = Date.now();
    const refused = await send('POST', '/api/v1/projects', { name: 'during-cut' });
    expect(refused.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as { code: string }).code).toBe('SERVICE_UNAVAILABLE');
    const bind = await send('POST', '/api/v1/projects/before-cut/roles/developer/users/zoe');
    expect(bind.status).toBe(503);

    const projects = await send('GET', '/api/v1/projects');
    expect(projects.status).toBe(200);
    const names = ((await projects.json()) as { items: { name: string; roles: { name: string; users: string[] }[] }[] }).items;
    expect(names.map((p) => p.name)).toContain('before-cut');
    expect(names.map((p) => p.name)).not.toContain('during-cut');
    expect(names.find((p) => p.name === 'before-cut')?.roles.find((r) => r.name === 'developer')?.users ?? []).not.toContain('zoe');
    expect((await send('GET', '/api/v1/rgds')).status).toBe(200);
    expect((await send('GET', '/api/v1/instances')).status).toBe(200);

    await proxy.restore();
    let recovered: Response | undefined;
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
      recovered = await send('POST', '/api/v1/projects', { name: 'after-cut' });
      if (recovered.status !== 503) break;
    }
    expect(recovered?.status).toBe(201);
    await new Promise((r) => setTimeout(r, 300));
    writing = false;
    await writer;

    expect(acknowledged.length).toBeGreaterThan(0);
    // A mutation that ran while the proxy was cut after its intent was stored was told its outcome; its record is
    // stored in the background once PostgreSQL answers again.
    const recorded = async () =>
      new Set((await stack.db.pool.query<{ request_id: string }>('SELECT request_id FROM audit_events WHERE request_id = ANY($1)', [acknowledged])).rows.map((r) => r.request_id));
    const unsettled = async () => (await stack.db.pool.query('SELECT id FROM audit_intents')).rows;
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
      if ((await recorded()).size === new Set(acknowledged).size && (await unsettled()).length === 0) break;
    }
    expect(await recorded()).toEqual(new Set(acknowledged));
    expect(await unsettled()).toEqual([]);
    const verify = await (await send('GET', '/api/v1/audit/verify')).json();
    expect(verify).toMatchObject({ ok: true });
  });
});
