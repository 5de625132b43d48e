import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes, type RouteDef } from '@portico/api';
import { handlers } from '../src/handlers/index.js';
import { fakeActor, fakePortico, goodToken, type FakePortico } from './support/fake-portico.js';
import { bearer, json, startServer, type RunningServer } from './support/server.js';

describe('handler registry', () => {
  it('has a handler for every non-Enterprise route of the table', () => {
    const missing = (routes as readonly RouteDef[]).filter((r) => !r.enterprise && typeof handlers[r.id] !== 'function');
    expect(missing.map((r) => r.id)).toEqual([]);
  });
});

describe('auth routes', () => {
  let portico: FakePortico;
  let server: RunningServer;

  beforeAll(async () => {
    portico = fakePortico({ config: { cookieSecure: true, tokenTtlSeconds: 3600 } });
    server = await startServer(portico);
  });
  afterAll(() => server.close());

  it('sets the session cookie on login', async () => {
    const res = await fetch(`${server.url}/api/v1/auth/local/login`, json({ username: 'alice', password: 'right' }));
    expect(res.status).toBe(200);
    expect((await res.json()).token).toBe(goodToken);
    expect(res.headers.get('set-cookie')).toBe(`portico_session=${goodToken}; HttpOnly; Path=/api; SameSite=Strict; Secure; Max-Age=3600`);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('passes the client address and request id to the domain', async () => {
    await fetch(`${server.url}/api/v1/auth/local/login`, json({ username: 'alice', password: 'right' }, { 'x-request-id': 'login-1' }));
    expect(portico.calls.logins.at(-1)).toMatchObject({ ip: '127.0.0.1', requestId: 'login-1' });
  });

  it('sets no cookie when login fails', async () => {
    const res = await fetch(`${server.url}/api/v1/auth/local/login`, json({ username: 'alice', password: 'wrong' }));
    expect(res.status).toBe(401);
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('sets the session cookie on token exchange', async () => {
    const res = await fetch(`${server.url}/api/v1/auth/token-exchange`, json({ code: 'one-time' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toMatch(/^portico_session=good-token; HttpOnly; Path=\/api; SameSite=Strict; Secure; Max-Age=3600$/);
  });

  it('accepts the session cookie instead of a bearer token', async () => {
    const res = await fetch(`${server.url}/api/v1/rgds/count`, { headers: { cookie: `other=1; portico_session=${goodToken}` } });
    expect(res.status).toBe(200);
  });

  it('refuses another Authorization scheme even with a valid cookie', async () => {
    const res = await fetch(`${server.url}/api/v1/rgds/count`, { headers: { authorization: 'Basic YWxpY2U6eA==', cookie: `portico_session=${goodToken}` } });
    expect(res.status).toBe(401);
  });

  it('logs out the caller and clears the cookie', async () => {
    const res = await fetch(`${server.url}/api/v1/auth/logout`, bearer(goodToken, { method: 'POST' }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: 'logged out' });
    expect(res.headers.get('set-cookie')).toBe('portico_session=; HttpOnly; Path=/api; SameSite=Strict; Secure; Max-Age=0');
    expect(portico.calls.logouts.at(-1)?.subject).toBe(fakeActor.subject);
  });

  it('redirects OIDC login and callback to where the domain says', async () => {
    const login = await fetch(`${server.url}/api/v1/auth/oidc/login?provider=corp`, { redirect: 'manual' });
    expect(login.status).toBe(302);
    expect(login.headers.get('location')).toBe('https://idp.example.com/authorize?provider=corp');
    const callback = await fetch(`${server.url}/api/v1/auth/oidc/callback?code=c&state=s`, { redirect: 'manual' });
    expect(callback.status).toBe(302);
    expect(callback.headers.get('location')).toBe('/login/done?code=one-time');
  });

  it('serves the sign-in options in both forms', async () => {
    expect(await (await fetch(`${server.url}/api/v1/auth/oidc/providers`)).json()).toEqual({ providers: [], options: [], localLoginEnabled: true });
    expect(await (await fetch(`${server.url}/api/v1/settings/sso/providers`)).json()).toEqual([]);
  });

  it('omits Secure when cookies are not configured secure', async () => {
    const dev = fakePortico({ config: { cookieSecure: false, tokenTtlSeconds: 60 } });
    const s = await startServer(dev);
    try {
      const res = await fetch(`${s.url}/api/v1/auth/local/login`, json({ username: 'alice', password: 'right' }));
      expect(res.headers.get('set-cookie')).toBe(`portico_session=${goodToken}; HttpOnly; Path=/api; SameSite=Strict; Max-Age=60`);
    } finally {
      await s.close();
    }
  });
});

describe('success statuses from the route table', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(fakePortico());
  });
  afterAll(() => server.close());

  it('answers creates with 201', async () => {
    const res = await fetch(`${server.url}/api/v1/projects/alpha/roles/dev/users/bob`, bearer(goodToken, { method: 'POST' }));
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ project: 'alpha', role: 'dev', type: 'user', subject: 'bob' });
  });

  it('answers deletes without a response schema with 204 and no body', async () => {
    for (const path of ['/api/v1/projects/alpha', '/api/v1/projects/alpha/roles/dev/groups/devs', '/api/v1/accounts/bob']) {
      const res = await fetch(`${server.url}${path}`, bearer(goodToken, { method: 'DELETE' }));
      expect(res.status, path).toBe(204);
      expect(await res.text()).toBe('');
    }
  });

  it('answers can-i "no" with 200', async () => {
    const res = await fetch(`${server.url}/api/v1/account/can-i/instances/create/alpha`, bearer(goodToken));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ value: 'no' });
  });
});

describe('instance routes', () => {
  let portico: FakePortico;
  let server: RunningServer;
  beforeAll(async () => {
    portico = fakePortico();
    server = await startServer(portico);
  });
  afterAll(() => server.close());

  const post = (path: string, body: unknown) => fetch(`${server.url}${path}`, bearer(goodToken, json(body)));

  it('maps Form A (namespaced) with namespace and kind from the path', async () => {
    const res = await post('/api/v1/namespaces/dev/instances/WebApp', { name: 'shop', project: 'alpha', values: { replicas: 2 } });
    expect(res.status).toBe(201);
    expect(portico.calls.instanceCreates.at(-1)?.input).toEqual({
      name: 'shop',
      namespace: 'dev',
      project: 'alpha',
      kind: 'WebApp',
      values: { replicas: 2 },
      deploymentMode: undefined,
    });
  });

  it('maps Form A (cluster-scoped, `_`) with an empty namespace, accepting projectId and spec', async () => {
    const res = await post('/api/v1/instances/_/Tenant', { name: 'acme', projectId: 'alpha', spec: { tier: 'gold' }, deploymentMode: 'gitops' });
    expect(res.status).toBe(201);
    expect(portico.calls.instanceCreates.at(-1)?.input).toEqual({
      name: 'acme',
      namespace: '',
      project: 'alpha',
      kind: 'Tenant',
      values: { tier: 'gold' },
      deploymentMode: 'gitops',
    });
  });

  it('maps Form B (flat body) with the kind left to the RGD', async () => {
    const res = await post('/api/v1/instances', { name: 'shop', namespace: 'dev', rgdName: 'webapp', projectId: 'alpha', spec: { a: 1 } });
    expect(res.status).toBe(201);
    const input = portico.calls.instanceCreates.at(-1)?.input;
    expect(input).toMatchObject({ name: 'shop', namespace: 'dev', project: 'alpha', rgdName: 'webapp', values: { a: 1 } });
    expect(input?.kind).toBeUndefined();
  });

  it('defaults values to {} and requires a project', async () => {
    await post('/api/v1/namespaces/dev/instances/WebApp', { name: 'bare', project: 'alpha' });
    expect(portico.calls.instanceCreates.at(-1)?.input.values).toEqual({});
    const res = await post('/api/v1/namespaces/dev/instances/WebApp', { name: 'orphan' });
    expect(res.status).toBe(400);
    expect((await res.json()).details.fields).toHaveProperty('project');
  });

  it('addresses get, patch and delete by {namespace, kind, name}, "" for `_`', async () => {
    await fetch(`${server.url}/api/v1/namespaces/dev/instances/WebApp/shop`, bearer(goodToken));
    await fetch(`${server.url}/api/v1/instances/_/Tenant/acme`, bearer(goodToken, { method: 'DELETE' }));
    await fetch(
      `${server.url}/api/v1/namespaces/dev/instances/WebApp/shop`,
      bearer(goodToken, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ spec: { replicas: 3 }, resourceVersion: '7' }) }),
    );
    expect(portico.calls.instanceKeys.slice(-3)).toEqual([
      { op: 'get', key: { namespace: 'dev', kind: 'WebApp', name: 'shop' } },
      { op: 'delete', key: { namespace: '', kind: 'Tenant', name: 'acme' } },
      { op: 'patch', key: { namespace: 'dev', kind: 'WebApp', name: 'shop' }, body: { spec: { replicas: 3 }, resourceVersion: '7' } },
    ]);
  });

  it('routes /instances/count to the counter, not to a parameter', async () => {
    const res = await fetch(`${server.url}/api/v1/instances/count`, bearer(goodToken));
    expect(await res.json()).toEqual({ count: 0 });
  });
});
