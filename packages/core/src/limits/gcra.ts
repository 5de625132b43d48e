import type { ThrottleResult } from '../ports/keyvalue.js';

// Float ms arithmetic: 60000/7 per token must not lose a request to rounding.
const EPSILON = 1e-6;

/**
 * One GCRA step from the stored theoretical arrival time (`tat`, epoch ms, absent for an idle key). Returns
 * the result and the `tat` to store (only when allowed). The Redis adapter runs the same arithmetic in Lua.
 */
export function gcraStep(storedTat: number | undefined, now: number, limit: number, periodMs: number): ThrottleResult & { tat?: number } {
  const interval = periodMs / limit;
  const tat = Math.max(storedTat ?? now, now);
  const nextTat = tat + interval;
  const allowAt = nextTat - periodMs;
  if (allowAt > now + EPSILON) return { allowed: false, remaining: 0, retryAfterMs: allowAt - now, resetMs: tat - now };
  return { allowed: true, remaining: Math.floor((periodMs - (nextTat - now)) / interval + EPSILON), retryAfterMs: 0, resetMs: nextTat - now, tat: nextTat };
}
