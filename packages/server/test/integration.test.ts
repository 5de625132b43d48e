import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { resources, type Portico } from '@portico/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisKeys, startTestPortico, type KeyValueKind, type TestPortico } from './support/portico.js';
import { bearer, json, type RunningServer } from './support/server.js';

/**
 * The HTTP layer over a real Portico: embedded cluster loaded with the sample catalog, development profile.
 * Issue 2 / acceptance 6: the same tests pass against the in-memory KeyValue and against real Redis
 * (127.0.0.1:6379, a key prefix unique to this run, removed afterwards).
 */
type Rgd = { name: string; category: string; extendsKinds: string[]; title: string; description: string };
type RgdList = { items: Rgd[]; totalCount: number; page: number; pageSize: number };

const kinds: KeyValueKind[] = ['memory', 'redis'];

describe.each(kinds)('issue 2 / acceptance 6: server over a real Portico with the %s key-value store', (kind) => {
  let tp: TestPortico;
  let portico: Portico;
  let server: RunningServer;
  let token: string;
  let adminPassword: string;

  const get = (path: string, t = token) => fetch(`${server.url}${path}`, bearer(t));
  const login = async (username: string, password: string) => {
    const res = await fetch(`${server.url}/api/v1/auth/local/login`, json({ username, password }));
    expect(res.status).toBe(200);
    return { res, body: (await res.json()) as { token: string; expiresAt: string; user: { id: string } } };
  };

  beforeAll(async () => {
    tp = await startTestPortico({ kv: kind });
    ({ portico, server, adminPassword } = tp);
    expect(portico.config.kv).toBe(kind);
    token = (await login('admin', adminPassword)).body.token;
  });

  afterAll(async () => {
    await tp?.close();
    if (tp?.redisPrefix) expect(await redisKeys(tp.redisPrefix)).toEqual([]);
  });

  it('logs in with a token, a user and the session cookie', async () => {
    const { res, body } = await login('admin', adminPassword);
    expect(body.token.split('.')).toHaveLength(3);
    expect(Date.parse(body.expiresAt)).toBeGreaterThan(Date.now());
    expect(body.user.id).toBe('admin');
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toContain(`portico_session=${body.token}`);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('Path=/api');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain(`Max-Age=${portico.config.tokenTtlSeconds}`);
    // Development profile: cookies are not Secure (plain http://localhost).
    expect(cookie).not.toContain('Secure');
  });

  it('refuses a wrong password with 401 and the same message as an unknown user', async () => {
    const wrong = await fetch(`${server.url}/api/v1/auth/local/login`, json({ username: 'admin', password: 'nope' }));
    const unknown = await fetch(`${server.url}/api/v1/auth/local/login`, json({ username: 'nobody', password: 'nope' }));
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect((await wrong.json()).message).toBe((await unknown.json()).message);
  });

  it('authenticates with the session cookie', async () => {
    const res = await fetch(`${server.url}/api/v1/rgds/count`, { headers: { cookie: `portico_session=${token}` } });
    expect(res.status).toBe(200);
    expect((await res.json()).count).toBeGreaterThan(0);
  });

  it('lists the catalog with category, search and extendsKind filters', async () => {
    const all = (await (await get('/api/v1/rgds?pageSize=500')).json()) as RgdList;
    expect(all.totalCount).toBe(all.items.length);
    expect(all.items.map((r) => r.name)).not.toContain('debug-toolbox'); // not annotated for the catalog

    const web = (await (await get('/api/v1/rgds?category=web')).json()) as RgdList;
    expect(web.totalCount).toBeGreaterThan(0);
    expect(web.totalCount).toBeLessThan(all.totalCount);
    expect(web.items.every((r) => r.category === 'web')).toBe(true);

    const search = (await (await get('/api/v1/rgds?search=POSTGRES')).json()) as RgdList;
    expect(search.totalCount).toBeGreaterThan(0);
    for (const r of search.items) expect(`${r.name} ${r.title} ${r.description}`.toLowerCase()).toContain('postgres');

    const extending = (await (await get('/api/v1/rgds?extendsKind=WebApp')).json()) as RgdList;
    expect(extending.totalCount).toBeGreaterThan(0);
    expect(extending.items.every((r) => r.extendsKinds.includes('WebApp'))).toBe(true);

    const combined = (await (await get('/api/v1/rgds?category=web&search=zzz-no-such-thing')).json()) as RgdList;
    expect(combined).toMatchObject({ items: [], totalCount: 0 });
  });

  it('pages and sorts', async () => {
    const all = (await (await get('/api/v1/rgds?pageSize=500&sortBy=name&sortOrder=asc')).json()) as RgdList;
    const names = all.items.map((r) => r.name);
    expect(names).toEqual([...names].sort());

    const page2 = (await (await get('/api/v1/rgds?page=2&pageSize=3&sortBy=name')).json()) as RgdList;
    expect(page2).toMatchObject({ page: 2, pageSize: 3, totalCount: all.totalCount });
    expect(page2.items.map((r) => r.name)).toEqual(names.slice(3, 6));

    const desc = (await (await get('/api/v1/rgds?pageSize=500&sortOrder=desc')).json()) as RgdList;
    expect(desc.items.map((r) => r.name)).toEqual([...names].reverse());
  });

  it('answers an invalid page with 400 naming page', async () => {
    const res = await get('/api/v1/rgds?page=-1');
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.details.fields).toHaveProperty('page');
    expect(body.message).toContain('page');
  });

  it('gets one RGD with its values schema', async () => {
    const res = await get('/api/v1/rgds/web-app');
    expect(res.status).toBe(200);
    const rgd = await res.json();
    expect(rgd.name).toBe('web-app');
    expect(rgd.schema).toMatchObject({ type: 'object' });
    expect(Object.keys(rgd.schema.properties ?? {}).length).toBeGreaterThan(0);

    const missing = await get('/api/v1/rgds/no-such-rgd');
    expect(missing.status).toBe(404);
    expect((await missing.json()).code).toBe('NOT_FOUND');
  });

  it('shows a project-only RGD to admins but not to other users, in lists and counts', async () => {
    const account = `dev-${randomUUID().slice(0, 8)}`;
    const created = await fetch(`${server.url}/api/v1/accounts`, bearer(token, json({ username: account, password: 'a-long-password', groups: [] })));
    expect(created.status).toBe(201);
    const userToken = (await login(account, 'a-long-password')).body.token;

    const adminList = (await (await get('/api/v1/rgds?pageSize=500')).json()) as RgdList;
    const userList = (await (await get('/api/v1/rgds?pageSize=500', userToken)).json()) as RgdList;
    expect(adminList.items.map((r) => r.name)).toContain('payment-gateway');
    expect(userList.items.map((r) => r.name)).not.toContain('payment-gateway');
    expect(userList.totalCount).toBe(userList.items.length);
    expect((await (await get('/api/v1/rgds/count', userToken)).json()).count).toBe(userList.totalCount);
    expect((await get('/api/v1/rgds/payment-gateway', userToken)).status).toBe(404);
  });

  describe('tokens that must not pass', () => {
    const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const now = () => Math.floor(Date.now() / 1000);

    const signingKey = async () => {
      const secret = await portico.cluster.get(resources.secret, 'portico-signing-key', portico.config.kubernetes.namespace);
      return new Uint8Array(Buffer.from(String(secret?.data?.hs256), 'base64'));
    };

    const expectRefused = async (t: string | undefined) => {
      const res = await fetch(`${server.url}/api/v1/rgds`, t === undefined ? {} : bearer(t));
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    };

    it('no token', () => expectRefused(undefined));
    it('garbage token', () => expectRefused('not-a-jwt'));

    it('tampered token', async () => {
      const [header, payload, signature] = token.split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      await expectRefused([header, b64url({ ...claims, sub: 'someone-else' }), signature].join('.'));
    });

    it('alg "none" token', async () => {
      const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
      await expectRefused(`${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`);
    });

    it('expired token, validly signed', async () => {
      const expired = await new SignJWT({ name: 'admin', groups: [], local: true })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject('admin')
        .setIssuer(portico.config.issuer)
        .setAudience('portico')
        .setIssuedAt(now() - 7200)
        .setExpirationTime(now() - 3600)
        .setJti(randomUUID())
        .sign(await signingKey());
      await expectRefused(expired);
    });

    it('the control: a fresh token signed the same way passes', async () => {
      const fresh = await new SignJWT({ name: 'admin', groups: [], local: true })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject('admin')
        .setIssuer(portico.config.issuer)
        .setAudience('portico')
        .setIssuedAt(now())
        .setExpirationTime(now() + 600)
        .setJti(randomUUID())
        .sign(await signingKey());
      expect((await get('/api/v1/rgds/count', fresh)).status).toBe(200);
    });

    it('revoked by logout, with the cookie cleared', async () => {
      const own = (await login('admin', adminPassword)).body.token;
      expect((await get('/api/v1/rgds/count', own)).status).toBe(200);
      const out = await fetch(`${server.url}/api/v1/auth/logout`, bearer(own, { method: 'POST' }));
      expect(out.status).toBe(200);
      expect(out.headers.get('set-cookie')).toMatch(/^portico_session=; .*Max-Age=0/);
      await expectRefused(own);
      // The revocation is in the configured store: with Redis, under this run's prefix.
      const { jti } = JSON.parse(Buffer.from(own.split('.')[1], 'base64url').toString()) as { jti: string };
      expect(await portico.kv.get(`revoked:${jti}`)).toBeDefined();
      if (kind === 'redis') expect(await redisKeys(tp.redisPrefix!)).toContain(`${tp.redisPrefix}revoked:${jti}`);
      const viaCookie = await fetch(`${server.url}/api/v1/rgds/count`, { headers: { cookie: `portico_session=${own}` } });
      expect(viaCookie.status).toBe(401);
      // Other sessions of the same user are unaffected.
      expect((await get('/api/v1/rgds/count')).status).toBe(200);
    });
  });

  it('reports readiness of the real components', async () => {
    const res = await fetch(`${server.url}/readyz`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.status).toBe('ok');
    expect(body.components.cluster).toEqual({ ok: true });
    expect(body.components.keyvalue).toMatchObject({ ok: true });
  });

  it('serves the explorer in the development profile', async () => {
    expect((await fetch(`${server.url}/swagger/`)).status).toBe(200);
    expect((await fetch(`${server.url}/swagger/openapi.yaml`)).status).toBe(200);
  });
});
