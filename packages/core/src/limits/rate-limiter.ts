import { PorticoError, isPorticoError, rateLimited, unavailable } from '../errors.js';
import type { Logger } from '../logger.js';
import type { KeyValue } from '../ports/keyvalue.js';
import type { LimitName, RateLimitRule } from './rules.js';
import { keyPart } from './store-key.js';

/** What is left of a bucket after a request was counted: the `RateLimit-*` headers of contract §9. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets. */
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
 * Counts one request in a fixed window kept in the shared store (one atomic `incrWindow`, a Lua script in
 * Redis), so every replica sees the same count. Returns the bucket's state, or throws 429 with
 * `Retry-After` = whole seconds until the window resets (when a request would pass again).
 */
export async function countRequest(
  kv: KeyValue,
  name: LimitName,
  rule: RateLimitRule,
  key: string,
  logger?: Logger,
): Promise<RateLimitState | undefined> {
  if (rule.limit <= 0) return undefined;
  let counted: { count: number; resetMs: number };
  try {
    counted = await kv.incrWindow(rateLimitKey(name, key), rule.windowSeconds * 1000);
  } catch (error) {
    throw failClosed(error);
  }
  const resetSeconds = Math.max(1, Math.ceil(counted.resetMs / 1000));
  const state = { limit: rule.limit, remaining: Math.max(0, rule.limit - counted.count), resetSeconds };
  if (counted.count > rule.limit) {
    logger?.debug({ bucket: name, retryAfter: resetSeconds }, 'rate limit exceeded');
    throw rateLimited(resetSeconds, rateLimitHeaders(state));
  }
  return state;
}
