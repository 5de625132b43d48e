import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes, type RouteDef } from '@portico/api';
import { systemActor, type KeyValue } from '@portico/core';
import { createRedisKeyValue } from '../../../core/src/adapters/redis-kv.js';
import { startCraftedProvider, type CraftedProvider } from '../../../core/test/oidc/crafted-provider.js';
import { until } from '../../../core/test/support/eventually.js';
import { ADMIN_PASSWORD, startPorticoStack, type PorticoStack } from '../hostile/stack.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

const REDIS = process.env.REDIS_ADDRESS ?? '127.0.0.1:6379';
const [redisHost, redisPort] = REDIS.split(':');
const prefix = `portico-test:${process.pid}:${randomUUID()}:`;

/** Sample path parameters that name things that exist in the test catalog. */
const sample: Record<string, string> = {
  name: 'alpha', namespace: 'dev', kind: 'WebApp', role: 'developer', user: 'bob', group: 'ops', username: 'gina',
  resource: 'instances', action: 'get', object: 'alpha', path: 'x', slug: 'database',
};
const pathOf = (route: RouteDef) => route.path.replace(/\{(\w+)\}/g, (_m, p: string) => sample[p] ?? 'x');

const bodies: Record<string, unknown> = {
  localLogin: { username: 'admin', password: ADMIN_PASSWORD },
  tokenExchange: { code: 'A'.repeat(43) },
};
const queries: Record<string, string> = {
  oidcLogin: '?provider=corp&redirect=/',
  oidcCallback: `?state=${'S'.repeat(43)}&code=c`,
};

async function call(url: string, route: RouteDef, token: string) {
  const init: RequestInit = { method: route.method, headers: { authorization: `Bearer ${token}` }, redirect: 'manual', signal: AbortSignal.timeout(2000) };
  if (route.method !== 'GET' && route.method !== 'HEAD' && route.method !== 'DELETE') {
    init.body = JSON.stringify(bodies[route.id] ?? {});
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  if (route.auth === 'none') delete (init.headers as Record<string, string>).authorization;
  const res = await fetch(`${url}${pathOf(route)}${queries[route.id] ?? ''}`, init);
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.text() };
}

describe('Redis outage: fail closed, recover without a restart', () => {
  let proxy: TcpProxy;
  let idp: CraftedProvider;
  let kv: KeyValue;
  let stack: PorticoStack;
  let token: string;

  beforeAll(async () => {
    proxy = await startTcpProxy({ host: redisHost, port: Number(redisPort) });
    idp = await startCraftedProvider();
    kv = createRedisKeyValue({ address: proxy.address(), prefix });
    stack = await startPorticoStack({
      kv,
      env: {
        PORTICO_OIDC_NAME: 'corp',
        PORTICO_OIDC_ISSUER: idp.issuer,
        PORTICO_OIDC_CLIENT_ID: 'portico',
        PORTICO_OIDC_CLIENT_SECRET: 'secret',
        PORTICO_PUBLIC_URL: 'http://portico.test',
        PORTICO_RATE_LIMITS: '{"login":1000,"user":1000,"ssoProviders":1000,"namespaces":1000,"oidcLogin":1000,"oidcCallback":1000}',
      },
    });
    token = await stack.adminToken();
    await stack.portico.accounts.create(systemActor('admin'), { username: 'gina', password: 'gina-password-1', groups: [] });
  });

  afterAll(async () => {
    await proxy?.restore().catch(() => undefined);
    await stack?.close();
    await kv?.close();
    await proxy?.close();
    await idp?.close();
    const admin = new Redis({ host: redisHost, port: Number(redisPort) });
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length) await admin.del(...keys);
    admin.disconnect();
  });

  // Every route but the probes, which answer for the process itself (checked on their own below).
  const table = (routes as readonly RouteDef[]).filter((r) => r.id !== 'healthz' && r.id !== 'readyz');
  // Protected: behind sign-in (sessions and per-user limits live in Redis) or counted per IP (§9, in Redis too).
  // A public route with no limit (the icons, from the cluster's ConfigMaps) needs no Redis and keeps answering.
  const isProtected = (route: RouteDef) => route.auth === 'user' || route.rateLimit !== undefined;
  const protectedRoutes = table.filter(isProtected);
  const openRoutes = table.filter((r) => !isProtected(r));

  it('serves every route before the outage', async () => {
    const ready = await fetch(`${stack.url}/readyz`);
    expect(ready.status).toBe(200);
    for (const id of ['listProjects', 'localLogin', 'ssoProviders', 'projectNamespaces', 'wsTicket']) {
      const route = table.find((r) => r.id === id)!;
      expect((await call(stack.url, route, token)).status, id).toBeLessThan(300);
    }
  });

  it('answers 503 with Retry-After on every protected route within 2 s while Redis is cut, and /readyz names it', async () => {
    expect(openRoutes.map((r) => r.id)).toEqual(['getIcon']);
    await proxy.cut();
    const answers = await Promise.all(protectedRoutes.map(async (route) => [route, await call(stack.url, route, token)] as const));
    for (const [route, answer] of answers) {
      expect(answer.status, `${route.id}: ${answer.body}`).toBe(503);
      expect(Number(answer.retryAfter), route.id).toBeGreaterThan(0);
      // A HEAD answer has no body; its status and Retry-After say it all.
      if (route.method !== 'HEAD') expect(JSON.parse(answer.body)).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: expect.any(String), details: expect.any(Object) });
    }
    for (const route of openRoutes) expect((await call(stack.url, route, token)).status, route.id).toBe(200);
    const ready = await fetch(`${stack.url}/readyz`);
    expect(ready.status).toBe(503);
    const body = await ready.json();
    expect(body.components.keyvalue.ok).toBe(false);
    expect(body.components.cluster.ok).toBe(true);
    // Liveness does not depend on Redis: the process is fine, it is waiting for a dependency.
    expect((await fetch(`${stack.url}/healthz`)).status).toBe(200);
  });

  it('serves the same requests again once Redis is back, with no restart', async () => {
    await proxy.restore();
    await until(async () => (await fetch(`${stack.url}/readyz`)).status === 200, '/readyz to recover', { timeoutMs: 20_000, intervalMs: 100 });
    for (const id of ['listProjects', 'localLogin', 'ssoProviders', 'projectNamespaces', 'wsTicket', 'oidcLogin', 'getAccount']) {
      const route = table.find((r) => r.id === id)!;
      const answer = await call(stack.url, route, token);
      expect(answer.status, `${id}: ${answer.body}`).toBeLessThan(400);
    }
  });
});
