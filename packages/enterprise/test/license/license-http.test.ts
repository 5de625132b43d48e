import { describe, expect, it } from 'vitest';
import { apiAs, createUser } from '../../../server/test/support/api-as.js';
import { eventually } from '../../../core/test/support/eventually.js';
import { startEnterpriseServer, useEnterprise } from '../support/server.js';
import { issueLicense } from '../support/license.js';

const raw = async (url: string, token: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, warning: res.headers.get('x-license-warning'), body: (await res.text().then((t) => (t ? JSON.parse(t) : undefined))) as any };
};

describe('license gate over HTTP (§12.1), signed by the example key', () => {
  const { ee, admin } = useEnterprise('embedded');
  const call = (method: string, path: string, body?: unknown) => raw(ee.url, ee.adminToken, method, path, body);
  const install = async (token: string) => {
    const res = await admin.post('/api/v1/license', { token });
    expect(res.status).toBe(200);
    return res.body;
  };

  it('missing: status says so, licensed features answer 402 naming the feature', async () => {
    const status = await call('GET', '/api/v1/license');
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ licensed: false, enterprise: true, status: 'missing', seats: { max: 0 } });
    const categories = await call('GET', '/api/v1/categories');
    expect(categories.status).toBe(402);
    expect(categories.body).toMatchObject({ code: 'LICENSE_REQUIRED', details: { feature: 'categories' } });
    expect((await call('GET', '/api/v1/ee/views')).body.details.feature).toBe('views');
  });

  it('unlicensed: a write with a malformed body is still 402, the license decides before the body is read', async () => {
    for (const [method, path, body] of [
      ['POST', '/api/v1/categories', { name: '', icon: 42 }],
      ['POST', '/api/v1/ee/views', 'not an object'],
      ['PUT', '/api/v1/settings/audit/config', { retentionDays: -1 }],
      ['POST', '/api/v1/compliance/constraints', {}],
    ] as const) {
      const res = await call(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(402);
      expect(res.body.code).toBe('LICENSE_REQUIRED');
    }
  });

  it('a token that does not verify is 400 and changes nothing; forged and alg-swapped ones too', async () => {
    const [header, payload, signature] = issueLicense({ features: ['views'] }).split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, features: ['views', 'categories'] })).toString('base64url')}.${signature}`;
    const none = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${payload}.`;
    for (const token of ['garbage', forged, none]) {
      const res = await call('POST', '/api/v1/license', { token });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
    }
    expect((await call('GET', '/api/v1/license')).body.status).toBe('missing');
  });

  it('only a Server Admin installs a license', async () => {
    const user = await createUser(ee, 'lic-user');
    expect((await user.post('/api/v1/license', { token: issueLicense() })).status).toBe(403);
    expect((await user.get('/api/v1/license')).status).toBe(200);
  });

  it('valid: licensed features 200, a feature absent from the license 402', async () => {
    const status = await install(issueLicense({ customer: 'acme', features: ['categories'], maxUsers: 50 }));
    expect(status).toMatchObject({ licensed: true, status: 'valid', license: { customer: 'acme', features: ['categories'], maxUsers: 50 } });
    const categories = await call('GET', '/api/v1/categories');
    expect(categories.status).toBe(200);
    expect(categories.warning).toBeNull();
    const views = await call('GET', '/api/v1/ee/views');
    expect(views.status).toBe(402);
    expect(views.body.details).toEqual({ feature: 'views' });
  });

  it('grace period: 200 with X-License-Warning: expired', async () => {
    const status = await install(issueLicense({ features: ['categories', 'views'], expires: '-2d' }));
    expect(status).toMatchObject({ licensed: true, status: 'grace_period' });
    expect(Date.parse(status.gracePeriodEnd)).toBeGreaterThan(Date.now());
    const res = await call('GET', '/api/v1/ee/views');
    expect(res.status).toBe(200);
    expect(res.warning).toBe('expired');
    const created = await call('POST', '/api/v1/ee/views', { slug: 'grace-view', name: 'Grace' });
    expect(created.status).toBe(201);
    expect(created.warning).toBe('expired');
  });

  it('expired: reads 200, writes 402 with reason license_expired, nothing written', async () => {
    const status = await install(issueLicense({ features: ['categories', 'views'], expires: '-8d' }));
    expect(status).toMatchObject({ licensed: false, status: 'expired' });
    const read = await call('GET', '/api/v1/ee/views');
    expect(read.status).toBe(200);
    expect(read.warning).toBe('expired');
    const write = await call('POST', '/api/v1/ee/views', { slug: 'expired-view', name: 'Nope' });
    expect(write.status).toBe(402);
    expect(write.body).toMatchObject({ code: 'LICENSE_REQUIRED', details: { feature: 'views', reason: 'license_expired' } });
    expect((await call('GET', '/api/v1/ee/views')).body.items.map((v: { slug: string }) => v.slug)).not.toContain('expired-view');
    expect((await call('POST', '/api/v1/categories', { slug: 'expired-cat', name: 'Nope' })).body.details.reason).toBe('license_expired');
  });
});

describe('seats', () => {
  const { ee, admin } = useEnterprise('embedded', { license: issueLicense({ features: ['categories'], maxUsers: 1 }) });

  it('are the distinct users active in 30 days, kept in PostgreSQL; over maxUsers warns and locks nobody out', async () => {
    const users = [await createUser(ee, 'seat-a'), await createUser(ee, 'seat-b')];
    for (const user of users) for (let i = 0; i < 3; i++) expect((await user.get('/api/v1/categories')).status).toBe(200);
    const status = await eventually(
      async () => (await admin.get('/api/v1/license')).body,
      (s) => s.seats.used >= 3,
      'admin and both users counted once each',
      { timeoutMs: 5_000, intervalMs: 100 },
    );
    expect(status.seats).toEqual({ used: 3, max: 1 });
    expect(status.message).toMatch(/exceed the 1 seats/);
    const { rows } = await ee.database.pool.query(`SELECT user_id FROM "${ee.schema}".user_activity ORDER BY user_id`);
    expect(rows.map((r: { user_id: string }) => r.user_id).sort()).toEqual(['admin', ...users.map((u) => u.username)].sort());
    const res = await raw(ee.url, users[0].token, 'GET', '/api/v1/categories');
    expect(res.status).toBe(200);
    expect(res.warning).toBe('seats_exceeded');
  });
});

describe('the license applies on every replica', () => {
  it('POST on replica A is seen by replica B within 5 s', async () => {
    const a = await startEnterpriseServer({ mode: 'embedded' });
    const b = await startEnterpriseServer({ mode: 'embedded', join: a });
    try {
      expect((await apiAs(b.url, b.adminToken).get('/api/v1/license')).body.status).toBe('missing');
      const applied = await apiAs(a.url, a.adminToken).post('/api/v1/license', { token: issueLicense({ customer: 'replicated', features: ['categories'] }) });
      expect(applied.status).toBe(200);
      const started = Date.now();
      await eventually(
        async () => (await apiAs(b.url, b.adminToken).get('/api/v1/license')).body,
        (status) => status.status === 'valid' && status.license?.customer === 'replicated',
        'replica B sees the license installed on replica A',
        { timeoutMs: 5_000, intervalMs: 50 },
      );
      expect(Date.now() - started).toBeLessThan(5_000);
      expect((await apiAs(b.url, b.adminToken).get('/api/v1/categories')).status).toBe(200);
    } finally {
      await b.close();
      await a.close();
    }
  });
});
