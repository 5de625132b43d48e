import { PorticoError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { KeyValue } from '../ports/keyvalue.js';
import { failClosed } from './rate-limiter.js';
import type { RateLimitRule } from './rules.js';
import { keyPart } from './store-key.js';

/**
 * Failed-login lockout, per client IP and per username: after `rule.limit` failures within the window, every
 * sign-in attempt from that IP or for that username gets 429 until the window ends, the right password
 * included (otherwise the lockout would be an oracle for it).
 */
export interface LoginLockout {
  /** Throws 429 RATE_LIMIT_EXCEEDED (with `retryAfter`) while the IP or the username is locked out. */
  assertOpen(ip: string, username: string): Promise<void>;
  /** Counts a failed attempt; locks the IP and/or the username once the limit is reached. */
  recordFailure(ip: string, username: string): Promise<void>;
  /**
   * A successful sign-in forgets the username's failures. The IP's stay: otherwise one valid account would let
   * an attacker reset their own counter between guesses at other accounts.
   */
  recordSuccess(username: string): Promise<void>;
}

export const LOCKED_OUT = 'too many failed sign-in attempts, retry later';

type Scope = 'ip' | 'user';

// Usernames compare case-insensitively here so `Admin` and `admin` share one counter.
const subjectKey = (scope: Scope, value: string) => `${scope}:${keyPart(scope === 'user' ? value.trim().toLowerCase() : value)}`;
interface LockoutOptions {
  kv: KeyValue;
  rule: RateLimitRule;
  now?: () => number;
  logger?: Logger;
  /** Store-key namespace, 429 message and log line: the same mechanism also locks out failed WebSocket upgrades. */
  name?: string;
  message?: string;
  logLine?: string;
}

export function createLoginLockout(deps: LockoutOptions): LoginLockout {
  const { kv, rule, logger, name = 'lockout', message = LOCKED_OUT, logLine = 'sign-in locked out after repeated failures' } = deps;
  const failuresKey = (scope: Scope, value: string) => `${name}:failures:${subjectKey(scope, value)}`;
  const lockKey = (scope: Scope, value: string) => `${name}:locked:${subjectKey(scope, value)}`;
  const lockedOut = (retryAfter: number) => new PorticoError('RATE_LIMIT_EXCEEDED', message, {}, { retryAfter });
  const now = deps.now ?? Date.now;
  const windowMs = rule.windowSeconds * 1000;
  const disabled = rule.limit <= 0;

  // The store calls fail closed: an attempt whose lockout state cannot be read or written does not proceed.
  const guarded = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      throw failClosed(error);
    }
  };

  const fail = async (scope: Scope, value: string) => {
    const { count, resetMs } = await kv.incrWindow(failuresKey(scope, value), windowMs);
    if (count < rule.limit) return;
    // The lock lasts for the rest of the window the failures were counted in; it holds its end time.
    const ttlMs = Math.max(1000, resetMs);
    await kv.set(lockKey(scope, value), String(now() + ttlMs), { ttlMs });
    if (count === rule.limit) logger?.warn({ scope, ...(scope === 'ip' ? { ip: value } : {}), seconds: Math.ceil(ttlMs / 1000) }, logLine);
  };

  return {
    async assertOpen(ip, username) {
      if (disabled) return;
      const locks = await guarded(() => Promise.all([kv.get(lockKey('ip', ip)), username ? kv.get(lockKey('user', username)) : undefined]));
      const until = Math.max(0, ...locks.map((v) => (v === undefined ? 0 : Number(v) || now() + windowMs)));
      if (until > now()) throw lockedOut(Math.max(1, Math.ceil((until - now()) / 1000)));
    },

    async recordFailure(ip, username) {
      if (disabled) return;
      await guarded(() => Promise.all([fail('ip', ip), username ? fail('user', username) : undefined]));
    },

    async recordSuccess(username) {
      if (disabled) return;
      await guarded(() => kv.del(failuresKey('user', username)));
    },
  };
}
