import { PorticoError, isPorticoError, rateLimited, unavailable } from '../errors.js';
import type { Logger } from '../logger.js';
import type { KeyValue, ThrottleResult } from '../ports/keyvalue.js';
import type { LimitName, RateLimitRule } from './rules.js';
import { keyPart } from './store-key.js';

/** What is left of a bucket after a request was counted: the `RateLimit-*` headers of contract §9. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Whole seconds until the bucket is full again (`remaining` back at `limit`). */
  resetSeconds: number;
}

export const rateLimitHeaders = (state: RateLimitState): Record<string, string> => ({
  'RateLimit-Limit': String(state.limit),
  'RateLimit-Remaining': String(state.remaining),
  'RateLimit-Reset': String(state.resetSeconds),
});

/** Seconds a client is told to wait when the store cannot count. */
const OUTAGE_RETRY_AFTER_S = 2;

/**
 * A store failure is never a reason to let a request through: the adapter's SERVICE_UNAVAILABLE passes on
 * as it is, anything else becomes one.
 */
export const failClosed = (error: unknown): PorticoError =>
  isPorticoError(error) && error.code === 'SERVICE_UNAVAILABLE' ? error : unavailable('rate limiter', OUTAGE_RETRY_AFTER_S, error);

export const rateLimitKey = (name: LimitName, key: string) => `ratelimit:${name}:${keyPart(key)}`;

/**
 * Counts one request against a smooth limit kept in the shared store (one atomic `throttle`, a Lua script in
 * Redis), so every replica sees the same bucket: `rule.limit` requests may come at once, then they pass at
 * the sustained rate of `limit` per window. Returns the bucket's state (`resetSeconds`: until the bucket is
 * full again), or throws 429 with `Retry-After` = whole seconds until one request passes again.
 */
export async function countRequest(
  kv: KeyValue,
  name: LimitName,
  rule: RateLimitRule,
  key: string,
  logger?: Logger,
): Promise<RateLimitState | undefined> {
  if (rule.limit <= 0) return undefined;
  let taken: ThrottleResult;
  try {
    taken = await kv.throttle(rateLimitKey(name, key), rule.limit, rule.windowSeconds * 1000);
  } catch (error) {
    throw failClosed(error);
  }
  const state = { limit: rule.limit, remaining: taken.remaining, resetSeconds: Math.max(1, Math.ceil(taken.resetMs / 1000)) };
  if (!taken.allowed) {
    // Rounded up, so a client that waits exactly this long gets through.
    const retryAfter = Math.max(1, Math.ceil(taken.retryAfterMs / 1000));
    logger?.debug({ bucket: name, retryAfter }, 'rate limit exceeded');
    throw rateLimited(retryAfter, rateLimitHeaders(state));
  }
  return state;
}
