export { createLimits, type Limits, type LimitsDeps } from './create-limits.js';
export { parseRateLimits, defaultRateLimits, limitNames, type LimitName, type RateLimitRule, type RateLimitRules } from './rules.js';
export { rateLimitHeaders, rateLimitKey, type RateLimitState } from './rate-limiter.js';
export { createLoginLockout, LOCKED_OUT, type LoginLockout } from './lockout.js';
