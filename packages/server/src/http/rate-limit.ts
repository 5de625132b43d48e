import type { ServerResponse } from 'node:http';
import type { RateLimitBucket, RouteDef } from '@portico/api';
import { rateLimitHeaders, type Actor, type Portico, type RateLimitState } from '@portico/core';

/** The part of core's `Limits` the pipeline uses. */
interface RateLimitChecks {
  check(name: RateLimitBucket | 'user', key: string): Promise<RateLimitState | undefined>;
}

/**
 * Whether a route's requests count against any bucket: its own, or `user` for every other authenticated route.
 * A bucket whose rule in force is unlimited (`limit` 0) counts nothing, so the route skips the step altogether;
 * the rules are read once at start, and a bucket they do not name is counted.
 */
export function countsRequests(limits: Partial<Pick<Portico['limits'], 'rules'>>, route: Pick<RouteDef, 'auth' | 'rateLimit'>): boolean {
  const bucket = route.rateLimit ?? (route.auth === 'user' ? 'user' : undefined);
  if (bucket === undefined) return false;
  const rule = limits.rules?.[bucket];
  return rule === undefined || rule.limit > 0;
}

/**
 * Contract §9 for one request: a route with a `rateLimit` bucket counts against the client IP, every other
 * authenticated route against the caller; unauthenticated routes without a bucket (probes) are not limited.
 * Sets `RateLimit-Limit/Remaining/Reset` on the response (the same headers core puts on its 429); the check
 * throws 429 RATE_LIMIT_EXCEEDED (with those headers and Retry-After) over the limit, 503 when the store
 * cannot count. Call it after authentication.
 */
export async function rateLimitFor(
  limits: RateLimitChecks,
  route: Pick<RouteDef, 'auth' | 'rateLimit'>,
  who: { ip: string; actor?: Actor },
  res: ServerResponse,
): Promise<void> {
  let state: RateLimitState | undefined;
  if (route.rateLimit) state = await limits.check(route.rateLimit, who.ip);
  else if (route.auth === 'user' && who.actor) state = await limits.check('user', who.actor.subject);
  else return;
  if (!state) return;
  for (const [name, value] of Object.entries(rateLimitHeaders(state))) res.setHeader(name, value);
}
