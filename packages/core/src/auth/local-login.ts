import type * as api from '@portico/api';
import { unauthorized } from '../errors.js';
import type { LoginLockout } from '../limits/lockout.js';
import type { Logger } from '../logger.js';
import type { RequestContext } from '../types.js';
import type { AccountStore } from './account-store.js';
import { localEmail } from './local-account.js';
import { verifyPassword } from './passwords.js';
import type { StartSession } from './sessions.js';

export const INVALID_CREDENTIALS = 'invalid username or password';

const MAX_PASSWORD_LENGTH = 1024;

/**
 * Sign-in with a local account. A scrypt verification runs on every attempt, against a dummy hash when the
 * user does not exist, and every failure gets the same message, so neither the answer nor its timing tells
 * whether a username exists. With a `lockout` (the limits module's), repeated failures from one IP or for one
 * username answer 429 for a while, before any password is checked.
 */
export function createLocalLogin(deps: {
  accounts: Pick<AccountStore, 'fresh'>;
  startSession: StartSession;
  /** A hash of a random password with the current parameters. */
  dummyHash: Promise<string>;
  logger: Logger;
  lockout?: LoginLockout;
}) {
  const { accounts, startSession, dummyHash, logger, lockout } = deps;

  return async (input: api.LocalLoginRequest, ctx: RequestContext): Promise<api.LoginResponse> => {
    const username = typeof input?.username === 'string' ? input.username : '';
    const password = typeof input?.password === 'string' && input.password.length <= MAX_PASSWORD_LENGTH ? input.password : '';
    await lockout?.assertOpen(ctx.ip, username);
    // Read fresh: a password changed on another replica a moment ago must not still open a session here.
    const account = username ? await accounts.fresh(username) : undefined;
    const matches = await verifyPassword(password, account?.hash ?? (await dummyHash));
    if (!account || !password || !matches) {
      logger.info({ ip: ctx.ip, requestId: ctx.requestId }, 'local sign-in failed');
      await lockout?.recordFailure(ctx.ip, username);
      throw unauthorized(INVALID_CREDENTIALS);
    }
    await lockout?.recordSuccess(account.username);
    logger.info({ username: account.username, ip: ctx.ip, requestId: ctx.requestId }, 'local sign-in');
    return startSession(
      { id: account.username, email: localEmail(account.username), displayName: account.username, groups: [...account.groups], local: true, generation: account.generation },
      account.tokensValidAfter,
    );
  };
}
