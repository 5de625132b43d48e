import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createRedisKeyValue } from '../../../core/src/adapters/redis-kv.js';
import { systemActor, type KeyValue } from '@portico/core';
import { ADMIN_PASSWORD, startPorticoStack, type PorticoStack } from './stack.js';

const REDIS = process.env.REDIS_ADDRESS ?? '127.0.0.1:6379';
const [redisHost, redisPort] = REDIS.split(':');

const login = (url: string, password: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/api/v1/auth/local/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ username: 'admin', password }),
  });

const limitHeaders = (res: Response) => ({
  limit: res.headers.get('ratelimit-limit'),
  remaining: res.headers.get('ratelimit-remaining'),
  reset: Number(res.headers.get('ratelimit-reset')),
});

describe('rate limits and lockout over HTTP', () => {
  const stacks: PorticoStack[] = [];
  const stores: KeyValue[] = [];
  const prefixes: string[] = [];
  const start = async (env: Record<string, string> = {}, kv?: KeyValue) => {
    const stack = await startPorticoStack({ env, kv });
    stacks.push(stack);
    return stack;
  };
  afterEach(async () => {
    await Promise.all(stacks.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    const admin = new Redis({ host: redisHost, port: Number(redisPort) });
    for (const prefix of prefixes) {
      const keys = await admin.keys(`${prefix}*`);
      if (keys.length) await admin.del(...keys);
    }
    admin.disconnect();
  });

  it('lets 5 sign-ins a minute through per IP with RateLimit headers, then 429 with Retry-After', async () => {
    const { url } = await start();
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await login(url, ADMIN_PASSWORD);
      expect(res.status).toBe(200);
      const h = limitHeaders(res);
      expect(h.limit).toBe('5');
      expect(h.reset).toBeGreaterThan(0);
      expect(h.reset).toBeLessThanOrEqual(60);
      remaining.push(h.remaining);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);

    // A client cannot pick its own address: X-Forwarded-For from an untrusted peer is ignored.
    const refused = await login(url, ADMIN_PASSWORD, { 'x-forwarded-for': '198.51.100.77' });
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limitHeaders(refused)).toMatchObject({ limit: '5', remaining: '0' });
    expect(await refused.json()).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', message: expect.any(String), details: {} });
    expect(refused.headers.get('set-cookie')).toBeNull();
  });

  it('limits every other authenticated endpoint per user, and leaves the probes alone', async () => {
    const stack = await start({ PORTICO_RATE_LIMITS: '{"user":{"limit":3,"windowSeconds":60}}' });
    await stack.portico.accounts.create(systemActor('admin'), { username: 'gina', password: 'gina-password-1', groups: [] });
    const admin = { authorization: `Bearer ${await stack.adminToken()}` };
    const gina = { authorization: `Bearer ${(await stack.portico.auth.localLogin({ username: 'gina', password: 'gina-password-1' }, { ip: '192.0.2.9' })).token}` };

    for (const path of ['/api/v1/projects', '/api/v1/rgds', '/api/v1/account']) {
      const res = await fetch(`${stack.url}${path}`, { headers: admin });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('3');
    }
    const over = await fetch(`${stack.url}/api/v1/instances`, { headers: admin });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);

    // Another user from the same address has their own budget; the probes have none.
    expect((await fetch(`${stack.url}/api/v1/projects`, { headers: gina })).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      const health = await fetch(`${stack.url}/healthz`);
      expect(health.status).toBe(200);
      expect(health.headers.get('ratelimit-limit')).toBeNull();
    }
  });

  it('locks sign-in out after repeated failures, the right password included', async () => {
    const { url } = await start({ PORTICO_RATE_LIMITS: '{"login":100,"loginFailures":{"limit":3,"windowSeconds":600}}' });
    for (let i = 0; i < 3; i++) expect((await login(url, `wrong-${i}`)).status).toBe(401);
    const locked = await login(url, ADMIN_PASSWORD);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(590);
    expect(await locked.json()).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', message: 'too many failed sign-in attempts, retry later' });
  });

  it('shares the counters between replicas through Redis: two replicas do not double the limit', async () => {
    const prefix = `portico-test:${process.pid}:${randomUUID()}:`;
    prefixes.push(prefix);
    const kvA = createRedisKeyValue({ address: REDIS, prefix });
    const kvB = createRedisKeyValue({ address: REDIS, prefix });
    stores.push(kvA, kvB);
    const a = await start({}, kvA);
    const b = await start({}, kvB);
    const options = (url: string) => fetch(`${url}/api/v1/settings/sso/providers`);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await options(i % 2 ? a.url : b.url)).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect((await options(a.url)).status).toBe(429);
    expect((await fetch(`${b.url}/api/v1/auth/oidc/providers`)).status).toBe(429);
  });
});
