/** A local account (the built-in admin or one from the accounts secret), as the auth module works with it. */
export interface LocalAccount {
  username: string;
  /** `scrypt$…` (passwords.ts). */
  hash: string;
  groups: string[];
  createdAt: string;
  /**
   * RFC 3339, on a whole second: tokens whose `iat` is earlier are refused (password change, re-creation of
   * a deleted account). New tokens for the account are issued no earlier than this.
   */
  tokensValidAfter?: string;
  /**
   * Random, set when the account is created and never changed: tokens carry it, so a token of a deleted
   * account never passes for a namesake created later, whatever the clock says. Absent for accounts stored
   * before generations existed (and the admin, which cannot be deleted).
   */
  generation?: string;
  /** The built-in `admin`: cannot be deleted, lives in its own secret. */
  builtIn: boolean;
}

export const ADMIN_USERNAME = 'admin';

/** Local accounts have no mailbox; clients in the field expect an address-shaped `email`, so they get this one. */
export const localEmail = (username: string) => `${username}@local`;

/**
 * The `tokensValidAfter` that cuts off every token issued so far. Token times are whole seconds, so the
 * cut-off is the next second, and at least a second past the previous cut-off (tokens issued since then
 * carry `iat` = that cut-off). Tokens issued after the change start at the new cut-off (see tokens.ts), so
 * a sign-in right after a password change works even within the same second.
 */
export function cutOffAfter(nowMs: number, previous?: string): string {
  const nextSecond = Math.floor(nowMs / 1000) + 1;
  const previousSecond = previous ? Math.floor(Date.parse(previous) / 1000) + 1 : 0;
  return new Date(Math.max(nextSecond, Number.isFinite(previousSecond) ? previousSecond : 0) * 1000).toISOString();
}
