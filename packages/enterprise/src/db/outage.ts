import { isPorticoError, unavailable } from '@portico/core';

/** Seconds a client should wait before retrying while PostgreSQL is unreachable. */
export const DATABASE_RETRY_AFTER = 2;

/**
 * Whether an error from `pg` means "PostgreSQL is not answering" (so the request gets 503 + Retry-After)
 * rather than a bug or a constraint: no SQLSTATE at all (socket refused, reset, timed out, pool checkout
 * timeout), or a class of connection (08), resources (53) or operator intervention (57: shutdown, cancelled
 * by statement timeout).
 */
export function isDatabaseOutage(error: unknown): boolean {
  if (isPorticoError(error)) return false;
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return /^(08|53|57)/.test(code);
  return error instanceof Error;
}

/** Runs a database call; an outage becomes SERVICE_UNAVAILABLE naming postgres, anything else passes. */
export async function withDatabase<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isDatabaseOutage(error)) throw unavailable('postgres', DATABASE_RETRY_AFTER, error);
    throw error;
  }
}
