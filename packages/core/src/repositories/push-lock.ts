import { randomBytes } from 'node:crypto';
import { PorticoError } from '../errors.js';
import type { KeyValue } from '../ports/keyvalue.js';

export interface PushLockOptions {
  /** How long a lease lives without renewal: a replica that dies holding it blocks others no longer than this. */
  leaseMs: number;
  /** How long a request waits for the branch before it gives up (502). */
  waitMs: number;
}

/**
 * Serialises pushes to one repository and branch across replicas: a lease in the KeyValue store (`SET NX PX`),
 * renewed while the push runs and released only by its holder (compare-and-set), and a queue in front of it so
 * that a replica's own requests wait in line instead of polling the store. Correctness does not rest on it (a
 * push is a compare-and-swap of the branch, rebased and retried when it loses); it keeps replicas from pushing
 * over each other forty times in a row.
 */
export interface PushLock {
  /** Runs `fn` holding the branch: after this replica's earlier calls for `key`, with the lease of every replica. */
  run<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /** Runs `fn` in this replica's line for `key` without the lease (a read that fetches the same branch). */
  inLine<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createPushLock(kv: KeyValue, opts: PushLockOptions): PushLock {
  const queues = new Map<string, Promise<unknown>>();

  const acquire = async (key: string, token: string) => {
    const deadline = Date.now() + opts.waitMs;
    for (let attempt = 0; ; attempt++) {
      if (await kv.set(key, token, { ifAbsent: true, ttlMs: opts.leaseMs })) return;
      if (Date.now() > deadline) {
        throw new PorticoError('GITOPS_ERROR', 'the branch is busy: other pushes to it did not finish in time, retry', { cause: 'busy' });
      }
      // Short, jittered waits: a push takes a moment, and replicas should not retry in lockstep.
      await sleep(Math.min(200, 15 + attempt * 10) * (0.5 + Math.random()));
    }
  };

  const holding = async <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const token = randomBytes(12).toString('base64url');
    await acquire(key, token);
    const renew = setInterval(() => void kv.compareAndSet(key, token, token, { ttlMs: opts.leaseMs }).catch(() => undefined), Math.max(50, opts.leaseMs / 3));
    try {
      return await fn();
    } finally {
      clearInterval(renew);
      await kv.compareAndSet(key, token, undefined).catch(() => undefined);
    }
  };

  const inLine = <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const previous = queues.get(key) ?? Promise.resolve();
    const result = previous.then(fn);
    const tail = result.catch(() => undefined);
    queues.set(key, tail);
    void tail.then(() => {
      if (queues.get(key) === tail) queues.delete(key);
    });
    return result;
  };

  return {
    run: (key, fn) => inLine(key, () => holding(key, fn)),
    inLine,
  };
}
