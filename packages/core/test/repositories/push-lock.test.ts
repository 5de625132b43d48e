import { describe, expect, it } from 'vitest';
import { createMemoryKeyValue } from '../../src/adapters/memory-kv.js';
import { createRedisKeyValue } from '../../src/adapters/redis-kv.js';
import type { KeyValue } from '../../src/ports/keyvalue.js';
import { createPushLock } from '../../src/repositories/push-lock.js';
import { randomUUID } from 'node:crypto';
import { deleteRedisKeys, redisAddress } from '../support/redis.js';

// Issue 39 step 4: pushes to one repository and branch are serialised across replicas by a lease in the
// KeyValue store, renewed while the push runs, released by its holder only, and given up by a holder that died.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `tasks` jobs through each lock at once; answers the most that ever ran together. */
async function mostAtOnce(locks: ReturnType<typeof createPushLock>[], tasks: number, key = 'git-push:repo:main'): Promise<number> {
  let running = 0;
  let most = 0;
  await Promise.all(
    locks.flatMap((lock) =>
      Array.from({ length: tasks }, () =>
        lock.run(key, async () => {
          most = Math.max(most, ++running);
          await sleep(5);
          running -= 1;
        }),
      ),
    ),
  );
  return most;
}

describe.each([
  ['memory', async () => createMemoryKeyValue()],
  ['redis', async () => {
    const prefix = `portico-test:push-lock:${randomUUID()}:`;
    const kv = createRedisKeyValue({ address: redisAddress, prefix });
    return { ...kv, close: async () => (await kv.close(), await deleteRedisKeys(prefix)) };
  }],
] as const)('push lock on %s', (_name, open) => {
  it('replicas sharing a store never push to one branch at once; other branches are not held up', async () => {
    const kv: KeyValue = await open();
    try {
      const replicas = [0, 1, 2].map(() => createPushLock(kv, { leaseMs: 5_000, waitMs: 30_000 }));
      expect(await mostAtOnce(replicas, 8)).toBe(1);
      // Different keys (another branch) run side by side.
      const [a, b] = replicas;
      let together = false;
      let inA = false;
      await Promise.all([
        a!.run('git-push:repo:main', async () => ((inA = true), await sleep(100), (inA = false))),
        b!.run('git-push:repo:release', async () => (await sleep(30), (together = inA))),
      ]);
      expect(together).toBe(true);
    } finally {
      await kv.close();
    }
  });

  it('a push that outlasts the lease keeps it (renewed); a holder that died frees it when its lease runs out', async () => {
    const kv: KeyValue = await open();
    try {
      const [a, b] = [createPushLock(kv, { leaseMs: 300, waitMs: 10_000 }), createPushLock(kv, { leaseMs: 300, waitMs: 10_000 })];
      const order: string[] = [];
      await Promise.all([
        a.run('k', async () => (order.push('a-start'), await sleep(900), order.push('a-end'))),
        sleep(50).then(() => b.run('k', async () => void order.push('b'))),
      ]);
      expect(order).toEqual(['a-start', 'a-end', 'b']);

      // A replica that took the lease and vanished (no renewal, no release).
      await kv.set('dead', 'someone', { ifAbsent: true, ttlMs: 300 });
      const started = Date.now();
      await b.run('dead', async () => undefined);
      expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    } finally {
      await kv.close();
    }
  });
});

it('without a shared store there is no serialisation (what the lock adds)', async () => {
  const replicas = [0, 1, 2].map(() => createPushLock(createMemoryKeyValue(), { leaseMs: 5_000, waitMs: 30_000 }));
  expect(await mostAtOnce(replicas, 8)).toBeGreaterThan(1);
});
