import { gcraStep } from '../limits/gcra.js';
import type { Logger } from '../logger.js';
import type { Disposable } from '../ports/cluster.js';
import type { KeyValue } from '../ports/keyvalue.js';

export interface MemoryKeyValueOptions {
  /** Clock in epoch ms (tests pass a fake one). */
  now?: () => number;
  /** Where a throwing subscriber is reported. */
  logger?: Logger;
  /** How often expired keys are swept from memory (default 60 s); reads honour TTLs regardless. */
  sweepMs?: number;
}

interface Entry {
  value: string;
  expiresAt?: number;
}

/**
 * KeyValue for a single process (development, tests, one replica): the same semantics as the Redis adapter,
 * including TTLs, single-use reads, fixed windows, smooth rate limits and asynchronous pub/sub, with nothing shared between
 * processes.
 */
export function createMemoryKeyValue(opts: MemoryKeyValueOptions = {}): KeyValue {
  const now = opts.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const channels = new Map<string, Set<(message: string) => void>>();

  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt !== undefined && entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };

  const sweeper = setInterval(() => {
    for (const key of entries.keys()) live(key);
  }, opts.sweepMs ?? 60_000);
  sweeper.unref();

  const deliver = (handler: (message: string) => void, message: string) => {
    try {
      handler(message);
    } catch (err) {
      opts.logger?.error({ err: String(err) }, 'memory key-value: subscriber threw');
    }
  };

  return {
    async get(key) {
      return live(key)?.value;
    },

    async set(key, value, { ttlMs, ifAbsent } = {}) {
      if (ifAbsent && live(key)) return false;
      entries.set(key, { value, expiresAt: ttlMs !== undefined && ttlMs > 0 ? now() + ttlMs : undefined });
      return true;
    },

    async getdel(key) {
      const entry = live(key);
      entries.delete(key);
      return entry?.value;
    },

    async del(key) {
      entries.delete(key);
    },

    async compareAndSet(key, expected, value, { ttlMs } = {}) {
      if (live(key)?.value !== expected) return false;
      if (value === undefined) entries.delete(key);
      else entries.set(key, { value, expiresAt: ttlMs !== undefined && ttlMs > 0 ? now() + ttlMs : undefined });
      return true;
    },

    async incrWindow(key, windowMs) {
      const t = now();
      const entry = live(key);
      if (!entry) {
        entries.set(key, { value: '1', expiresAt: t + windowMs });
        return { count: 1, resetMs: windowMs };
      }
      const count = Number(entry.value) + 1;
      if (!Number.isSafeInteger(count)) throw new Error(`key "${key}" does not hold a counter`);
      entry.value = String(count);
      // A key set without TTL gets the window now, as PEXPIRE NX does in Redis.
      if (entry.expiresAt === undefined) entry.expiresAt = t + windowMs;
      return { count, resetMs: entry.expiresAt - t };
    },

    async throttle(key, limit, periodMs) {
      const t = now();
      const stored = live(key);
      const { tat, ...result } = gcraStep(stored ? Number(stored.value) : undefined, t, limit, periodMs);
      if (tat !== undefined) entries.set(key, { value: String(tat), expiresAt: tat });
      return result;
    },

    async publish(channel, message) {
      const handlers = channels.get(channel);
      // Delivered later, like a message through Redis; a subscription closed meanwhile gets nothing.
      for (const handler of [...(handlers ?? [])]) setImmediate(() => handlers!.has(handler) && deliver(handler, message));
    },

    async subscribe(channel, onMessage): Promise<Disposable> {
      // Each subscription is its own wrapper, so the same function subscribed twice is two subscriptions.
      const handler = (message: string) => onMessage(message);
      let handlers = channels.get(channel);
      if (!handlers) channels.set(channel, (handlers = new Set()));
      handlers.add(handler);
      return {
        close() {
          handlers!.delete(handler);
          if (handlers!.size === 0 && channels.get(channel) === handlers) channels.delete(channel);
        },
      };
    },

    async health() {
      return { ok: true };
    },

    async close() {
      clearInterval(sweeper);
      channels.clear();
    },
  };
}
