import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisKeyValue } from '../../../core/src/adapters/redis-kv.js';
import { systemActor, type KeyValue } from '@portico/core';
import { startPorticoStack, type PorticoStack } from './stack.js';

const REDIS = process.env.REDIS_ADDRESS ?? '127.0.0.1:6379';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The contract's 100 requests a minute per user, smoothed (GCRA over Redis): a page load's burst never locks a
 * user out, a flood is cut at the limit, and Retry-After says exactly when the next request passes.
 */
describe('smooth per-user rate limits over HTTP, counted in the real Redis', () => {
  const prefix = `portico-test:${process.pid}:${randomUUID()}:`;
  let kv: KeyValue;
  let stack: PorticoStack;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    kv = createRedisKeyValue({ address: REDIS, prefix });
    stack = await startPorticoStack({ kv, env: { PORTICO_KV: 'redis' } });
    for (const username of ['alice', 'bob']) {
      await stack.portico.accounts.create(systemActor('admin'), { username, password: `${username}-password-1`, groups: [] });
      tokens[username] = (await stack.portico.auth.localLogin({ username, password: `${username}-password-1` }, { ip: '192.0.2.9' })).token;
    }
  });

  afterAll(async () => {
    await stack?.close();
    await kv?.close();
    const [host, port] = REDIS.split(':');
    const admin = new Redis({ host, port: Number(port) });
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length) await admin.del(...keys);
    admin.disconnect();
  });

  const call = (user: string) => fetch(`${stack.url}/api/v1/account`, { headers: { authorization: `Bearer ${tokens[user]}` } });

  it('never refuses a burst of 30 calls then a steady call a second; refuses 150 quick calls from about the 101st, with an exact Retry-After', async () => {
    const steady = (async () => {
      const statuses: number[] = [];
      for (const res of await Promise.all(Array.from({ length: 30 }, () => call('alice')))) statuses.push(res.status);
      for (let second = 0; second < 12; second++) {
        await sleep(1000);
        statuses.push((await call('alice')).status);
      }
      return statuses;
    })();

    const flood = (async () => {
      const started = Date.now();
      const answers: { status: number; retryAfter: string | null; remaining: string | null }[] = [];
      for (let i = 0; i < 150; i++) {
        const res = await call('bob');
        answers.push({ status: res.status, retryAfter: res.headers.get('retry-after'), remaining: res.headers.get('ratelimit-remaining') });
      }
      return { answers, seconds: (Date.now() - started) / 1000 };
    })();

    const statuses = await steady;
    expect(statuses).toHaveLength(42);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);

    const { answers, seconds } = await flood;
    expect(seconds).toBeLessThan(10);
    const firstRefused = answers.findIndex((a) => a.status === 429) + 1;
    // 100 at once, plus one for every 600 ms the flood took before reaching them.
    expect(firstRefused).toBeGreaterThanOrEqual(101);
    expect(firstRefused).toBeLessThanOrEqual(101 + Math.ceil(seconds / 0.6));
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(150 - 101 - Math.ceil(seconds / 0.6));
    // One request every 600 ms is the sustained rate, so the next one is never more than a second away.
    for (const a of refused) expect(a).toMatchObject({ retryAfter: '1', remaining: '0' });

    // Empty the bucket again (the flood's end let a few requests' worth refill), then wait exactly Retry-After.
    let last = await call('bob');
    for (let i = 0; i < 20 && last.status === 200; i++) last = await call('bob');
    expect(last.status).toBe(429);
    await sleep(Number(last.headers.get('retry-after')) * 1000);
    expect((await call('bob')).status).toBe(200);
  }, 60_000);
});
