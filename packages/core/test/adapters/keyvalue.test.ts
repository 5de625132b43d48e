import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryKeyValue } from '../../src/adapters/memory-kv.js';
import { createRedisKeyValue } from '../../src/adapters/redis-kv.js';
import { isPorticoError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import { keyValueContract } from '../contract/keyvalue-contract.js';

const REDIS = process.env.REDIS_ADDRESS ?? '127.0.0.1:6379';
const testPrefix = () => `portico-test:${process.pid}:${randomUUID()}:`;

async function deleteKeys(prefix: string) {
  const [host, port] = REDIS.split(':');
  const admin = new Redis({ host, port: Number(port), lazyConnect: true });
  await admin.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length) await admin.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    admin.disconnect();
  }
}

/** A loopback TCP proxy in front of the real Redis that the test can cut and restore, to stage an outage. */
async function redisProxy() {
  const [host, port] = REDIS.split(':');
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let proxyPort = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(Number(port), host);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => s.destroy());
        }
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      server.listen(proxyPort, '127.0.0.1', () => {
        proxyPort = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  await listen();
  return {
    address: () => `127.0.0.1:${proxyPort}`,
    async cut() {
      await new Promise<void>((resolve) => {
        server!.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
    restore: listen,
  };
}

keyValueContract('memory', async () => {
  const kv = createMemoryKeyValue();
  return { kv, cleanup: () => kv.close() };
});

keyValueContract('redis', async () => {
  const prefix = testPrefix();
  const kv = createRedisKeyValue({ address: REDIS, prefix });
  return {
    kv,
    cleanup: async () => {
      await kv.close();
      await deleteKeys(prefix);
    },
  };
});

describe('memory KeyValue', () => {
  it('honours TTLs by its clock and windows reset when the clock passes them', async () => {
    let t = 1_000_000;
    const kv = createMemoryKeyValue({ now: () => t });
    await kv.set('k', 'v', { ttlMs: 1000 });
    t += 999;
    expect(await kv.get('k')).toBe('v');
    t += 1;
    expect(await kv.get('k')).toBeUndefined();
    expect(await kv.incrWindow('w', 60_000)).toEqual({ count: 1, resetMs: 60_000 });
    t += 15_000;
    expect(await kv.incrWindow('w', 60_000)).toEqual({ count: 2, resetMs: 45_000 });
    t += 45_000;
    expect(await kv.incrWindow('w', 60_000)).toEqual({ count: 1, resetMs: 60_000 });
    await kv.close();
  });

  it('a throwing subscriber does not stop delivery to the others', async () => {
    const kv = createMemoryKeyValue();
    const got: string[] = [];
    await kv.subscribe('c', () => {
      throw new Error('subscriber bug');
    });
    await kv.subscribe('c', (m) => got.push(m));
    await kv.publish('c', 'm');
    await new Promise((r) => setTimeout(r, 20));
    expect(got).toEqual(['m']);
    await kv.close();
  });
});

describe('redis KeyValue', () => {
  const prefix = testPrefix();
  afterAll(() => deleteKeys(prefix));

  it('stores keys under its prefix and isolates other prefixes', async () => {
    const kv = createRedisKeyValue({ address: `redis://${REDIS}`, prefix });
    const neighbour = createRedisKeyValue({ address: REDIS, prefix: `${prefix}other:` });
    try {
      await kv.set('shared-name', 'mine');
      expect(await neighbour.get('shared-name')).toBeUndefined();
      const [host, port] = REDIS.split(':');
      const raw = new Redis({ host, port: Number(port) });
      expect(await raw.get(`${prefix}shared-name`)).toBe('mine');
      raw.disconnect();
    } finally {
      await kv.close();
      await neighbour.close();
    }
  });

  it('fails fast with SERVICE_UNAVAILABLE when Redis is unreachable, and says so in health()', async () => {
    const kv = createRedisKeyValue({ address: '127.0.0.1:1', prefix: testPrefix() });
    try {
      for (const call of [() => kv.get('a'), () => kv.set('a', 'b'), () => kv.incrWindow('a', 1000), () => kv.getdel('a'), () => kv.publish('c', 'm')]) {
        const started = Date.now();
        const err = await call().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(Date.now() - started).toBeLessThan(3000);
        expect(isPorticoError(err) && err.code).toBe('SERVICE_UNAVAILABLE');
        expect(isPorticoError(err) && err.retryAfter).toBeGreaterThan(0);
      }
      await expect(kv.subscribe('c', () => undefined)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      const health = await kv.health();
      expect(health.ok).toBe(false);
      expect(health.message).toBeTruthy();
    } finally {
      await kv.close();
    }
  });

  it('survives an outage: fails fast while down, logs it once, recovers with its subscriptions', async () => {
    const proxy = await redisProxy();
    const warnings: string[] = [];
    const logger = createLogger('warn', {
      write: (line: string) => warnings.push(JSON.parse(line).msg),
    } as unknown as NodeJS.WritableStream);
    const p = testPrefix();
    const kv = createRedisKeyValue({ address: proxy.address(), prefix: p, logger });
    const publisher = createRedisKeyValue({ address: REDIS, prefix: p });
    const got: string[] = [];
    const waitFor = async (check: () => Promise<boolean> | boolean, what: string) => {
      const deadline = Date.now() + 15_000;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    try {
      await kv.set('k', 'before');
      await kv.subscribe('news', (m) => got.push(m));

      await proxy.cut();
      await waitFor(async () => !(await kv.health()).ok, 'health to report the outage');
      for (let i = 0; i < 5; i++) {
        const started = Date.now();
        await expect(kv.get('k')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
        expect(Date.now() - started).toBeLessThan(3000);
      }
      await new Promise((r) => setTimeout(r, 500)); // a few reconnect attempts fail meanwhile

      await proxy.restore();
      await waitFor(async () => (await kv.health()).ok, 'health to recover');
      expect(await kv.get('k')).toBe('before');
      await waitFor(async () => {
        await publisher.publish('news', 'after the outage');
        return got.includes('after the outage');
      }, 'the subscription to be restored');
      const outageWarnings = warnings.filter((w) => /unavailable/.test(w));
      expect(outageWarnings.length).toBeGreaterThanOrEqual(1);
      expect(outageWarnings.length).toBeLessThanOrEqual(2); // one per connection, not one per attempt
    } finally {
      await kv.close();
      await publisher.close();
      await proxy.cut();
      await deleteKeys(p);
    }
  });

  it('messages published by one process reach the subscribers of another', async () => {
    const p = testPrefix();
    const a = createRedisKeyValue({ address: REDIS, prefix: p });
    const b = createRedisKeyValue({ address: REDIS, prefix: p });
    try {
      const got: string[] = [];
      const s = await b.subscribe('events', (m) => got.push(m));
      await a.publish('events', 'from a');
      const deadline = Date.now() + 5000;
      while (got.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(got).toEqual(['from a']);
      s.close();
    } finally {
      await a.close();
      await b.close();
    }
  });
});
