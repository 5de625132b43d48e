import * as api from '@portico/api';
import type { Actor } from '../actor.js';
import { badRequest, forbidden, unauthorized } from '../errors.js';
import type { AccountsService, Authorizer } from '../types.js';
import type { AccountStore } from './account-store.js';
import type { LocalAccount } from './local-account.js';
import { hashPassword, verifyPassword } from './passwords.js';
import type { Revocation } from './revocations.js';
import { INVALID_TOKEN } from './tokens.js';
import { parseInput } from '../validation.js';

const toApi = (a: LocalAccount): api.Account => ({ username: a.username, groups: [...a.groups], createdAt: a.createdAt });

/** §2.1: Server Admins manage local accounts; every local user changes their own password. */
export function createAccountsService(deps: {
  store: AccountStore;
  authz: Authorizer;
  /** Tells every replica that the account's earlier sessions are cut off (open sockets close). */
  announce?: (revocation: Revocation) => Promise<void>;
}): AccountsService {
  const { store, authz } = deps;
  const announce = deps.announce ?? (async () => undefined);

  const requireServerAdmin = (actor: Actor) => {
    if (!authz.isServerAdmin(actor)) throw forbidden('only a Server Admin may manage local accounts');
  };

  return {
    async list(actor) {
      requireServerAdmin(actor);
      const items = (await store.list()).map(toApi);
      return { items, totalCount: items.length };
    },

    async create(actor, input) {
      requireServerAdmin(actor);
      const { username, password, groups } = parseInput(api.CreateAccountRequest, input);
      const hash = await hashPassword(password);
      return toApi(await store.create({ username, hash, groups: [...new Set(groups)] }));
    },

    async delete(actor, username) {
      requireServerAdmin(actor);
      if (!api.Username.safeParse(username).success) throw badRequest('invalid username', { username });
      await store.remove(username);
      await announce({ account: username });
    },

    async changePassword(actor, input) {
      if (!actor.local) throw forbidden('only local accounts have a password to change; use your identity provider');
      const { currentPassword, newPassword } = parseInput(api.ChangePasswordRequest, input);
      const account = await store.fresh(actor.id);
      if (!account) throw unauthorized(INVALID_TOKEN);
      if (!(await verifyPassword(currentPassword, account.hash))) throw unauthorized('current password is incorrect');
      await store.setPassword(account.username, account.hash, await hashPassword(newPassword));
      await announce({ account: account.username });
      return { message: 'password changed; sign in again with the new password' };
    },
  };
}
