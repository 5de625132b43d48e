import type { ComponentHealth, Disposable } from './cluster.js';

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
  /** Atomic fixed-window counter: increments and returns the count and the ms until the window resets. */
  incrWindow(key: string, windowMs: number): Promise<{ count: number; resetMs: number }>;
  publish(channel: string, message: string): Promise<void>;
  /** Delivers every message published on `channel` by any process sharing the store, this one included. */
  subscribe(channel: string, onMessage: (message: string) => void): Promise<Disposable>;
  health(): Promise<ComponentHealth>;
  close(): Promise<void>;
}
