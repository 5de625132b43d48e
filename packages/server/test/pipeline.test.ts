import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakePortico, goodToken, type FakePortico } from './support/fake-portico.js';
import { bearer, startServer, type RunningServer } from './support/server.js';

const securityHeaders = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'content-security-policy': "default-src 'self'; frame-ancestors 'none'",
};

const expectSecurityHeaders = (res: Response) => {
  for (const [name, value] of Object.entries(securityHeaders)) expect(res.headers.get(name), name).toBe(value);
};

describe('request pipeline', () => {
  let portico: FakePortico;
  let server: RunningServer;

  beforeAll(async () => {
    portico = fakePortico({ config: { trustedProxies: ['127.0.0.1'] } });
    server = await startServer(portico);
  });
  afterAll(() => server.close());

  it('serves /healthz with the security headers and a request id', async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expectSecurityHeaders(res);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('strict-transport-security')).toBeNull();
  });

  it('puts the security headers on errors too', async () => {
    for (const res of [
      await fetch(`${server.url}/nope`),
      await fetch(`${server.url}/api/v1/rgds`),
      await fetch(`${server.url}/api/v1/rgds`, { method: 'PUT' }),
    ]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expectSecurityHeaders(res);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('echoes a sane X-Request-ID and replaces a hostile one', async () => {
    const echoed = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'abc-123.DEF_9' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123.DEF_9');

    for (const bad of ['a b', 'x'.repeat(129), 'id;drop', '']) {
      const res = await fetch(`${server.url}/api/v1/nothing`, { headers: { 'x-request-id': bad } });
      const id = res.headers.get('x-request-id');
      expect(id).not.toBe(bad);
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect((await res.json()).requestId).toBe(id);
    }
  });

  it('logs each request with its request id', async () => {
    await fetch(`${server.url}/api/v1/rgds/count`, bearer(goodToken, { headers: { 'x-request-id': 'trace-me-1' } }));
    const line = portico.logs.find((l) => l.requestId === 'trace-me-1' && l.msg === 'request');
    expect(line).toMatchObject({ method: 'GET', path: '/api/v1/rgds/count', status: 200 });
  });

  it('answers unknown routes with a JSON 404 envelope naming the path', async () => {
    const res = await fetch(`${server.url}/api/v1/unknown/thing?x=1`);
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body).toEqual({
      code: 'NOT_FOUND',
      message: expect.any(String),
      details: { resource: 'route', identifier: '/api/v1/unknown/thing' },
      requestId: res.headers.get('x-request-id'),
    });
  });

  it('answers a wrong method with 405 and an Allow header from the route table', async () => {
    const res = await fetch(`${server.url}/api/v1/projects/alpha`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, PUT, DELETE');
    expect((await res.json()).code).toBe('METHOD_NOT_ALLOWED');

    const list = await fetch(`${server.url}/api/v1/projects`, { method: 'DELETE' });
    expect(list.status).toBe(405);
    expect(list.headers.get('allow')).toBe('GET, POST');

    const patch = await fetch(`${server.url}/healthz`, { method: 'PATCH' });
    expect(patch.headers.get('allow')).toBe('GET');
  });

  it('routes static paths before parameters (/rgds/count is not an RGD named "count")', async () => {
    const res = await fetch(`${server.url}/api/v1/rgds/count`, bearer(goodToken));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ count: 3 });
  });

  it('sends HSTS only for TLS requests, i.e. X-Forwarded-Proto https from a trusted proxy', async () => {
    const viaProxy = await fetch(`${server.url}/healthz`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(viaProxy.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
  });

  it('takes the client address from X-Forwarded-For only past trusted proxies', async () => {
    await fetch(`${server.url}/api/v1/auth/local/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '6.6.6.6, 203.0.113.7, 127.0.0.1' },
      body: JSON.stringify({ username: 'alice', password: 'right' }),
    });
    // The client could have written 6.6.6.6 itself; 203.0.113.7 is what our proxy saw.
    expect(portico.calls.logins.at(-1)?.ip).toBe('203.0.113.7');
  });

  it('answers readiness with 503 when a component is down', async () => {
    const down = fakePortico({
      overrides: { readiness: async () => ({ status: 'unavailable', components: { keyvalue: { ok: false, message: 'down' } } }) },
    });
    const s = await startServer(down);
    try {
      const res = await fetch(`${s.url}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 'unavailable', components: { keyvalue: { ok: false, message: 'down' } } });
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('client address without trusted proxies', () => {
  it('ignores X-Forwarded-For and X-Forwarded-Proto from an untrusted peer', async () => {
    const portico = fakePortico();
    const server = await startServer(portico);
    try {
      const res = await fetch(`${server.url}/api/v1/auth/local/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https' },
        body: JSON.stringify({ username: 'alice', password: 'right' }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('strict-transport-security')).toBeNull();
      expect(portico.calls.logins.at(-1)?.ip).toBe('127.0.0.1');
    } finally {
      await server.close();
    }
  });
});
