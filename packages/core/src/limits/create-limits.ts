import type { PorticoConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { KeyValue } from '../ports/keyvalue.js';
import { createLoginLockout, type LoginLockout } from './lockout.js';
import { countRequest, type RateLimitState } from './rate-limiter.js';
import { parseRateLimits, type LimitName, type RateLimitRules } from './rules.js';

/** Rate limits (contract §9) and the failed-login lockout, all counted in the shared KeyValue store. */
export interface Limits {
  /** The rules in force (defaults merged with `PORTICO_RATE_LIMITS`). */
  readonly rules: Readonly<RateLimitRules>;
  /**
   * Counts one request against `name` for `key` (the client IP for the per-IP buckets, the actor's subject
   * for `user`). Returns the bucket's state for the `RateLimit-*` headers, `undefined` when the bucket is
   * unlimited; throws 429 RATE_LIMIT_EXCEEDED over the limit and 503 SERVICE_UNAVAILABLE when the store
   * cannot count (never lets a request through unchecked).
   */
  check(name: LimitName, key: string): Promise<RateLimitState | undefined>;
  lockout: LoginLockout;
  /** Refused WebSocket upgrades per client IP (`assertOpen(ip, '')` / `recordFailure(ip, '')`). */
  upgradeLockout: LoginLockout;
}

export interface LimitsDeps {
  kv: KeyValue;
  config: PorticoConfig;
  /** Read for `PORTICO_RATE_LIMITS` when the config does not carry it. */
  env?: Record<string, string | undefined>;
  logger?: Logger;
  /** Epoch ms; a fake clock in tests. */
  now?: () => number;
}

/** Throws (naming PORTICO_RATE_LIMITS) when the configuration is invalid, so start-up stops. */
export function createLimits(deps: LimitsDeps): Limits {
  const { kv, config, env } = deps;
  const logger = deps.logger?.child({ module: 'limits' });
  const rules = parseRateLimits(config.rateLimits ?? env?.PORTICO_RATE_LIMITS);
  return {
    rules,
    check: (name, key) => countRequest(kv, name, rules[name], key, logger),
    lockout: createLoginLockout({ kv, rule: rules.loginFailures, now: deps.now, logger }),
    upgradeLockout: createLoginLockout({
      kv,
      rule: rules.wsUpgradeFailures,
      now: deps.now,
      logger,
      name: 'ws-upgrade-lockout',
      message: 'too many refused WebSocket upgrades from this address, retry later',
      logLine: 'WebSocket upgrades locked out after repeated failures',
    }),
  };
}
