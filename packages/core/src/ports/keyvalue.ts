import type { ComponentHealth, Disposable } from './cluster.js';

/**
 * What one request did to a smooth rate limit (GCRA: a bucket of `limit` tokens that refills evenly over
 * `periodMs`, so a burst of up to `limit` passes at once and the sustained rate is `limit` per period).
 */
export interface ThrottleResult {
  allowed: boolean;
  /** Requests that would still pass right now. */
  remaining: number;
  /** When refused: ms until one request passes again; 0 when allowed. */
  retryAfterMs: number;
  /** Ms until the bucket is full again (`remaining` back at `limit`). */
  resetMs: number;
}

/**
 * The KeyValue port: short-lived shared state (revocations, tickets, codes, rate-limit counters) and
 * pub/sub between replicas. Adapters throw PorticoError SERVICE_UNAVAILABLE (with retryAfter) when the store
 * cannot answer within a few seconds; they never hang and never pretend success.
 */
export interface KeyValue {
  get(key: string): Promise<string | undefined>;
  /** Returns false when `ifAbsent` is set and the key exists. */
  set(key: string, value: string, opts?: { ttlMs?: number; ifAbsent?: boolean }): Promise<boolean>;
  /** Atomic read-and-delete: single-use tickets and codes. */
  getdel(key: string): Promise<string | undefined>;
  del(key: string): Promise<void>;
  /**
   * Atomic compare-and-set, for leases (a lock held by one replica): when `key` holds `expected`, sets it to
   * `value` (with `ttlMs`), or deletes it when `value` is undefined; answers whether it did.
   */
  compareAndSet(key: string, expected: string, value: string | undefined, opts?: { ttlMs?: number }): Promise<boolean>;
  /** Atomic fixed-window counter: increments and returns the count and the ms until the window resets. */
  incrWindow(key: string, windowMs: number): Promise<{ count: number; resetMs: number }>;
  /**
   * Atomic smooth rate limit (GCRA): takes one of `limit` tokens that refill evenly over `periodMs`, so a
   * burst of `limit` passes and the sustained rate stays `limit` per period. A refused call takes nothing.
   */
  throttle(key: string, limit: number, periodMs: number): Promise<ThrottleResult>;
  publish(channel: string, message: string): Promise<void>;
  /**
   * Delivers every message published on `channel` by any process sharing the store, this one included.
   * `onGap` is called when the subscription was interrupted and restored: messages published meanwhile were
   * not delivered (pub/sub keeps nothing), so the subscriber can make up for them.
   */
  subscribe(channel: string, onMessage: (message: string) => void, onGap?: () => void): Promise<Disposable>;
  health(): Promise<ComponentHealth>;
  close(): Promise<void>;
}
