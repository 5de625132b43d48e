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
  /** The built-in `admin`: cannot be deleted, lives in its own secret. */
  builtIn: boolean;
}

export const ADMIN_USERNAME = 'admin';

/**
 * The `tokensValidAfter` that cuts off every token issued up to `nowMs`. Token times are whole seconds, so
 * the cut-off is the next second: a token issued earlier in the current second is refused too, and tokens
 * issued after the change start at the cut-off (see tokens.ts), so a sign-in right after a password change
 * still works.
 */
export const cutOffAfter = (nowMs: number): string => new Date((Math.floor(nowMs / 1000) + 1) * 1000).toISOString();
