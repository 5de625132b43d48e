import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryKeyValue } from '../../src/adapters/memory-kv.js';
import { createRedisKeyValue } from '../../src/adapters/redis-kv.js';
import { loadConfig } from '../../src/config.js';
import { PorticoError, unavailable } from '../../src/errors.js';
import { createLimits, defaultRateLimits, parseRateLimits, type Limits } from '../../src/limits/index.js';
import type { KeyValue } from '../../src/ports/keyvalue.js';
import { fakeClock } from '../auth/fakes.js';

const REDIS = process.env.REDIS_ADDRESS ?? '127.0.0.1:6379';

const config = (env: Record<string, string> = {}) => loadConfig({ PORTICO_PROFILE: 'development', ...env });

async function failure(p: Promise<unknown>): Promise<PorticoError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof PorticoError)) throw new Error(`expected a PorticoError, got ${String(e)}`);
  return e;
}

function memoryLimits(env: Record<string, string> = {}) {
  const now = fakeClock();
  const kv = createMemoryKeyValue({ now });
  return { now, kv, limits: createLimits({ kv, config: config(env), now }) };
}

/** A store whose every call fails the way the given error says. */
const brokenKv = (error: unknown): KeyValue => {
  const fail = () => Promise.reject(error);
  return {
    get: fail, set: fail, getdel: fail, del: fail, compareAndSet: fail, incrWindow: fail, throttle: fail, publish: fail, subscribe: fail,
    health: async () => ({ ok: false }), close: async () => {},
  };
};

describe('rate limit configuration', () => {
  it('defaults to the limits of contract §9 and a 10-failures-in-15-minutes lockout', () => {
    // The §9 table as the contract writes it (endpoint, requests per minute), mapped to the rule that enforces it.
    const contractTable: [endpoint: string, rule: keyof ReturnType<typeof parseRateLimits>, perMinute: number][] = [
      ['POST /api/v1/auth/local/login', 'login', 5],
      ['GET /api/v1/auth/oidc/login', 'oidcLogin', 20],
      ['GET /api/v1/auth/oidc/callback', 'oidcCallback', 5],
      ['sign-in option list (both forms)', 'ssoProviders', 30],
      ['GET /api/v1/projects/{name}/namespaces', 'namespaces', 20],
      ['every other authenticated endpoint', 'user', 100],
    ];
    const rules = parseRateLimits(undefined);
    for (const [endpoint, rule, perMinute] of contractTable) expect(rules[rule], endpoint).toEqual({ limit: perMinute, windowSeconds: 60 });
    expect(rules.loginFailures).toEqual({ limit: 10, windowSeconds: 15 * 60 });
    expect(rules.wsUpgradeFailures).toEqual({ limit: 30, windowSeconds: 60 });
    expect(Object.keys(rules).sort()).toEqual([...contractTable.map(([, rule]) => rule), 'loginFailures', 'wsUpgradeFailures'].sort());
  });

  it('overrides single rules from PORTICO_RATE_LIMITS, as objects or bare limits', () => {
    const rules = parseRateLimits('{"login":{"limit":50},"user":{"limit":1000,"windowSeconds":10},"namespaces":0,"ssoProviders":7}');
    expect(rules.login).toEqual({ limit: 50, windowSeconds: 60 });
    expect(rules.user).toEqual({ limit: 1000, windowSeconds: 10 });
    expect(rules.namespaces.limit).toBe(0);
    expect(rules.ssoProviders).toEqual({ limit: 7, windowSeconds: 60 });
    expect(rules.oidcLogin).toEqual(defaultRateLimits.oidcLogin);
  });

  it('turns every limit and the lockout off with 0', () => {
    expect(Object.values(parseRateLimits('0')).every((r) => r.limit === 0)).toBe(true);
  });

  it.each([
    ['not json', '{login:5}'],
    ['an array', '[1,2]'],
    ['an unknown bucket', '{"logins":5}'],
    ['a negative limit', '{"login":-1}'],
    ['a fractional limit', '{"login":1.5}'],
    ['a zero window', '{"login":{"limit":5,"windowSeconds":0}}'],
    ['an unknown field', '{"login":{"limit":5,"burst":3}}'],
    ['a string limit', '{"login":"5"}'],
  ])('refuses %s, naming the variable', (_what, text) => {
    expect(() => parseRateLimits(text)).toThrow(/PORTICO_RATE_LIMITS/);
  });

  it('reads the configuration when the limits are created, so a bad value stops start-up', () => {
    expect(() => createLimits({ kv: createMemoryKeyValue(), config: config({ PORTICO_RATE_LIMITS: '{"user":"lots"}' }) })).toThrow(/PORTICO_RATE_LIMITS/);
    const fromEnv = createLimits({ kv: createMemoryKeyValue(), config: config(), env: { PORTICO_RATE_LIMITS: '{"user":3}' } });
    expect(fromEnv.rules.user.limit).toBe(3);
  });
});

describe('rate limits over the key-value store', () => {
  it('lets a burst of 5 sign-ins through per IP, then one every 12 s, with a Retry-After that is right to the second', async () => {
    const { now, limits } = memoryLimits();
    const states = [];
    for (let i = 0; i < 5; i++) states.push(await limits.check('login', '198.51.100.1'));
    expect(states.map((s) => s?.remaining)).toEqual([4, 3, 2, 1, 0]);
    // RateLimit-Reset: seconds until the bucket is full again (one request's worth refills every 12 s).
    expect(states[0]).toEqual({ limit: 5, remaining: 4, resetSeconds: 12 });
    expect(states[4]).toEqual({ limit: 5, remaining: 0, resetSeconds: 60 });

    now.advance(5_500);
    const refused = await failure(limits.check('login', '198.51.100.1'));
    expect(refused).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429, retryAfter: 7 });
    expect(refused.headers).toEqual({ 'RateLimit-Limit': '5', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '55' });

    // Another client is not affected; the first one waits one second less than told and is still refused,
    // then passes exactly when told.
    expect(await limits.check('login', '198.51.100.2')).toMatchObject({ remaining: 4 });
    now.advance(5_600);
    await expect(limits.check('login', '198.51.100.1')).rejects.toMatchObject({ retryAfter: 1 });
    now.advance(900);
    expect(await limits.check('login', '198.51.100.1')).toMatchObject({ remaining: 0 });
    // A full period of quiet refills the whole burst.
    now.advance(60_000);
    expect(await limits.check('login', '198.51.100.1')).toMatchObject({ remaining: 4 });
  });

  it('never refuses a burst of 30 calls followed by a steady call a second (100/min per user)', async () => {
    const { now, limits } = memoryLimits();
    for (let i = 0; i < 30; i++) await limits.check('user', 'user:alice');
    for (let second = 0; second < 600; second++) {
      now.advance(1000);
      await limits.check('user', 'user:alice');
    }
    // The bucket settled where 1/s against 100/min leaves it: far from empty.
    expect((await limits.check('user', 'user:alice'))?.remaining).toBeGreaterThan(90);
  });

  it('refuses 150 calls within 10 s from about the 101st on, each time saying exactly when the next passes', async () => {
    const { now, limits } = memoryLimits();
    const outcomes: (number | 'ok')[] = [];
    for (let i = 0; i < 150; i++) {
      const refused = await limits.check('user', 'user:bob').then(() => undefined, (e: PorticoError) => e);
      outcomes.push(refused ? refused.retryAfter! : 'ok');
      now.advance(66); // 150 calls in 9.9 s
    }
    const firstRefused = outcomes.findIndex((o) => o !== 'ok');
    // The burst of 100, plus one more for every 600 ms that passed meanwhile (7.4 s: 12 more).
    expect(firstRefused + 1).toBe(113);
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(116);
    // Sustained 100/min is one request every 600 ms: Retry-After never says more than a second.
    expect(outcomes.filter((o) => o !== 'ok').every((o) => o === 1)).toBe(true);
  });

  it('rounds Retry-After up to whole seconds so a client that waits that long gets through', async () => {
    const { now, limits } = memoryLimits({ PORTICO_RATE_LIMITS: '{"oidcCallback":1}' });
    await limits.check('oidcCallback', '198.51.100.1');
    now.advance(58_500);
    const refused = await failure(limits.check('oidcCallback', '198.51.100.1'));
    expect(refused.retryAfter).toBe(2);
    now.advance(1_500);
    await expect(limits.check('oidcCallback', '198.51.100.1')).resolves.toMatchObject({ remaining: 0 });
  });

  it('keeps buckets apart: the per-user limit does not eat into the per-IP sign-in limit', async () => {
    const { limits } = memoryLimits({ PORTICO_RATE_LIMITS: '{"user":2,"login":2}' });
    await limits.check('user', 'user:alice');
    await limits.check('user', 'user:alice');
    await expect(limits.check('user', 'user:alice')).rejects.toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    await expect(limits.check('user', 'user:bob')).resolves.toMatchObject({ remaining: 1 });
    await expect(limits.check('login', 'user:alice')).resolves.toMatchObject({ remaining: 1 });
  });

  it('does not count or answer headers for an unlimited bucket', async () => {
    const { limits } = memoryLimits({ PORTICO_RATE_LIMITS: '{"user":0}' });
    for (let i = 0; i < 200; i++) expect(await limits.check('user', 'user:alice')).toBeUndefined();
  });

  it('hashes keys that are long or carry separators, so clients cannot shape store keys', async () => {
    const seen: string[] = [];
    const kv = createMemoryKeyValue();
    const spy: KeyValue = { ...kv, throttle: (key, limit, ms) => (seen.push(key), kv.throttle(key, limit, ms)) };
    const limits = createLimits({ kv: spy, config: config() });
    await limits.check('user', 'user:alice');
    await limits.check('user', `user:${'x'.repeat(500)}`);
    await limits.check('user', 'user:a b\r\n*');
    expect(seen[0]).toBe('ratelimit:user:user:alice');
    expect(seen[1]).toMatch(/^ratelimit:user:#[A-Za-z0-9_-]{43}$/);
    expect(seen[2]).toMatch(/^ratelimit:user:#[A-Za-z0-9_-]{43}$/);
  });

  it('fails closed with 503 and Retry-After when the store cannot count', async () => {
    const outage = createLimits({ kv: brokenKv(unavailable('redis', 2)), config: config() });
    expect(await failure(outage.check('login', '198.51.100.1'))).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, retryAfter: 2 });

    const bug = createLimits({ kv: brokenKv(new Error('WRONGTYPE')), config: config() });
    const e = await failure(bug.check('user', 'user:alice'));
    expect(e).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
    expect(e.retryAfter).toBeGreaterThan(0);
    expect(e.message).not.toContain('WRONGTYPE');
  });
});

describe('rate limits shared by replicas through Redis', () => {
  const prefix = `portico-test:${process.pid}:${randomUUID()}:`;
  const stores: KeyValue[] = [];
  const replica = async (env: Record<string, string> = {}): Promise<Limits> => {
    const kv = createRedisKeyValue({ address: REDIS, prefix });
    stores.push(kv);
    await kv.get('connected'); // the first command waits for the connection; later ones run at once
    return createLimits({ kv, config: config(env) });
  };

  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    const [host, port] = REDIS.split(':');
    const admin = new Redis({ host, port: Number(port) });
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length) await admin.del(...keys);
    admin.disconnect();
  });

  it('counts one limit across replicas: adding replicas does not multiply it', async () => {
    const a = await replica();
    const b = await replica();
    const ip = '198.51.100.7';
    for (let i = 0; i < 3; i++) await a.check('login', ip);
    await b.check('login', ip);
    await a.check('login', ip);
    await expect(b.check('login', ip)).rejects.toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', retryAfter: expect.any(Number) });
    await expect(a.check('login', ip)).rejects.toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
  });

  it('counts atomically: of 40 concurrent requests from two replicas exactly the limit pass', async () => {
    const a = await replica({ PORTICO_RATE_LIMITS: '{"namespaces":{"limit":12,"windowSeconds":30}}' });
    const b = await replica({ PORTICO_RATE_LIMITS: '{"namespaces":{"limit":12,"windowSeconds":30}}' });
    const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).check('namespaces', '203.0.113.99')));
    const passed = results.filter((r) => r.status === 'fulfilled');
    expect(passed).toHaveLength(12);
    const remaining = passed.map((r) => (r as PromiseFulfilledResult<{ remaining: number }>).value.remaining).sort((x, y) => x - y);
    expect(remaining).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    for (const r of results.filter((x) => x.status === 'rejected')) {
      const reset = (r as PromiseRejectedResult).reason as PorticoError;
      expect(reset.code).toBe('RATE_LIMIT_EXCEEDED');
      expect(reset.retryAfter).toBeGreaterThan(0);
      expect(reset.retryAfter).toBeLessThanOrEqual(30);
    }
  });
});
