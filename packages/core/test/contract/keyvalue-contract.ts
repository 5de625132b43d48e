import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyValue } from '../../src/ports/keyvalue.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function eventually(check: () => boolean, what: string, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return;
    await sleep(10);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * The behaviour every KeyValue adapter must share (memory, Redis). Keys and channels are unique to the run;
 * `cleanup` should remove whatever the adapter stored.
 */
export function keyValueContract(name: string, setup: () => Promise<{ kv: KeyValue; cleanup: () => Promise<void> }>) {
  describe(`KeyValue contract: ${name}`, () => {
    let kv: KeyValue;
    let cleanup: () => Promise<void>;
    const run = randomUUID();
    let counter = 0;
    const key = (base: string) => `ct:${run}:${base}:${++counter}`;

    beforeAll(async () => {
      ({ kv, cleanup } = await setup());
    });
    afterAll(async () => {
      await cleanup?.();
    });

    it('get of an absent key is undefined; set then get returns the value', async () => {
      const k = key('plain');
      expect(await kv.get(k)).toBeUndefined();
      expect(await kv.set(k, 'value one')).toBe(true);
      expect(await kv.get(k)).toBe('value one');
      expect(await kv.set(k, 'value two')).toBe(true);
      expect(await kv.get(k)).toBe('value two');
    });

    it('a value with a TTL expires', async () => {
      const k = key('ttl');
      const forever = key('forever');
      await kv.set(k, 'short-lived', { ttlMs: 80 });
      await kv.set(forever, 'stays');
      expect(await kv.get(k)).toBe('short-lived');
      await sleep(200);
      expect(await kv.get(k)).toBeUndefined();
      expect(await kv.get(forever)).toBe('stays');
    });

    it('ifAbsent sets only when the key is free (again after expiry)', async () => {
      const k = key('nx');
      expect(await kv.set(k, 'first', { ifAbsent: true, ttlMs: 80 })).toBe(true);
      expect(await kv.set(k, 'second', { ifAbsent: true })).toBe(false);
      expect(await kv.get(k)).toBe('first');
      await sleep(200);
      expect(await kv.set(k, 'third', { ifAbsent: true })).toBe(true);
      expect(await kv.get(k)).toBe('third');
    });

    it('getdel returns the value once', async () => {
      const k = key('ticket');
      await kv.set(k, 'single-use', { ttlMs: 10_000 });
      const [a, b] = await Promise.all([kv.getdel(k), kv.getdel(k)]);
      expect([a, b].filter((v) => v === 'single-use')).toHaveLength(1);
      expect([a, b].filter((v) => v === undefined)).toHaveLength(1);
      expect(await kv.get(k)).toBeUndefined();
      expect(await kv.getdel(key('never-set'))).toBeUndefined();
    });

    it('del removes a key, and deleting an absent key is fine', async () => {
      const k = key('del');
      await kv.set(k, 'x');
      await kv.del(k);
      expect(await kv.get(k)).toBeUndefined();
      await expect(kv.del(k)).resolves.toBeUndefined();
    });

    it('compareAndSet renews or releases a lease only while it holds the expected value', async () => {
      const k = key('lease');
      expect(await kv.set(k, 'holder-a', { ifAbsent: true, ttlMs: 150 })).toBe(true);
      expect(await kv.compareAndSet(k, 'holder-b', 'holder-b', { ttlMs: 10_000 })).toBe(false);
      expect(await kv.compareAndSet(k, 'holder-a', 'holder-a', { ttlMs: 10_000 })).toBe(true);
      await sleep(300);
      // Renewed: still held after the first TTL would have ended.
      expect(await kv.get(k)).toBe('holder-a');
      expect(await kv.compareAndSet(k, 'holder-b', undefined)).toBe(false);
      expect(await kv.get(k)).toBe('holder-a');
      expect(await kv.compareAndSet(k, 'holder-a', undefined)).toBe(true);
      expect(await kv.get(k)).toBeUndefined();
      expect(await kv.compareAndSet(k, 'holder-a', undefined)).toBe(false);
    });

    it('incrWindow counts within a window and starts over after it', async () => {
      const k = key('window');
      const windowMs = 300;
      const first = await kv.incrWindow(k, windowMs);
      expect(first.count).toBe(1);
      expect(first.resetMs).toBeGreaterThan(0);
      expect(first.resetMs).toBeLessThanOrEqual(windowMs);
      const results = await Promise.all([kv.incrWindow(k, windowMs), kv.incrWindow(k, windowMs), kv.incrWindow(k, windowMs)]);
      expect(results.map((r) => r.count).sort()).toEqual([2, 3, 4]);
      for (const r of results) expect(r.resetMs).toBeLessThanOrEqual(first.resetMs);
      await sleep(windowMs + 100);
      const fresh = await kv.incrWindow(k, windowMs);
      expect(fresh.count).toBe(1);
      expect(fresh.resetMs).toBeGreaterThan(windowMs / 2);
    });

    it('separate keys have separate windows', async () => {
      const a = key('wa');
      const b = key('wb');
      await kv.incrWindow(a, 10_000);
      await kv.incrWindow(a, 10_000);
      expect((await kv.incrWindow(b, 10_000)).count).toBe(1);
      expect((await kv.incrWindow(a, 10_000)).count).toBe(3);
    });

    it('throttle lets a burst of the limit through, refuses the next and says when one passes again', async () => {
      const k = key('throttle');
      const results = await Promise.all(Array.from({ length: 7 }, () => kv.throttle(k, 5, 1000)));
      const allowed = results.filter((r) => r.allowed);
      expect(allowed).toHaveLength(5);
      expect(allowed.map((r) => r.remaining).sort()).toEqual([0, 1, 2, 3, 4]);
      for (const refused of results.filter((r) => !r.allowed)) {
        expect(refused.remaining).toBe(0);
        // One token every 200 ms: the next one is at most that far away.
        expect(refused.retryAfterMs).toBeGreaterThan(0);
        expect(refused.retryAfterMs).toBeLessThanOrEqual(200);
        expect(refused.resetMs).toBeGreaterThan(800);
        expect(refused.resetMs).toBeLessThanOrEqual(1000);
      }
      const { retryAfterMs } = results.find((r) => !r.allowed)!;
      await sleep(retryAfterMs + 20);
      const again = await kv.throttle(k, 5, 1000);
      expect(again.allowed).toBe(true);
      expect(again.remaining).toBe(0);
      // A refused call took nothing, and the bucket refills evenly: after the whole period it is full again.
      await sleep(1050);
      expect(await kv.throttle(k, 5, 1000)).toMatchObject({ allowed: true, remaining: 4 });
      expect((await kv.throttle(key('throttle-other'), 5, 1000)).remaining).toBe(4);
    });

    it('publish reaches every subscriber of the channel, and only that channel', async () => {
      const channel = key('chan');
      const other = key('other');
      const one: string[] = [];
      const two: string[] = [];
      const elsewhere: string[] = [];
      const s1 = await kv.subscribe(channel, (m) => one.push(m));
      const s2 = await kv.subscribe(channel, (m) => two.push(m));
      const s3 = await kv.subscribe(other, (m) => elsewhere.push(m));
      try {
        await kv.publish(channel, 'hello');
        await kv.publish(channel, 'world');
        await eventually(() => one.length === 2 && two.length === 2, 'both subscribers to get both messages');
        expect(one).toEqual(['hello', 'world']);
        expect(two).toEqual(['hello', 'world']);
        await kv.publish(other, 'marker');
        await eventually(() => elsewhere.length === 1, 'the other channel message');
        expect(one).toHaveLength(2);
      } finally {
        s1.close();
        s2.close();
        s3.close();
      }
    });

    it('a closed subscription gets nothing more while others still do', async () => {
      const channel = key('unsub');
      const closed: string[] = [];
      const open: string[] = [];
      const s1 = await kv.subscribe(channel, (m) => closed.push(m));
      const s2 = await kv.subscribe(channel, (m) => open.push(m));
      try {
        await kv.publish(channel, 'before');
        await eventually(() => closed.length === 1 && open.length === 1, 'the first message');
        s1.close();
        await kv.publish(channel, 'after');
        await kv.publish(channel, 'after again');
        await eventually(() => open.length === 3, 'the later messages');
        expect(open).toEqual(['before', 'after', 'after again']);
        expect(closed).toEqual(['before']);
      } finally {
        s1.close();
        s2.close();
      }
    });

    it('messages published with no subscriber are not kept for later ones', async () => {
      const channel = key('late');
      await kv.publish(channel, 'lost');
      const got: string[] = [];
      const s = await kv.subscribe(channel, (m) => got.push(m));
      try {
        await kv.publish(channel, 'seen');
        await eventually(() => got.length >= 1, 'the message after subscribing');
        expect(got).toEqual(['seen']);
      } finally {
        s.close();
      }
    });

    it('reports healthy', async () => {
      expect((await kv.health()).ok).toBe(true);
    });
  });
}
