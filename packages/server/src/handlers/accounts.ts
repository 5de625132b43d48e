import type * as api from '@portico/api';
import { handler } from './types.js';

/** §2.1 local accounts; who may do what is the domain's decision. */
export const accountsHandlers = {
  listAccounts: handler(({ portico, actor }) => portico.accounts.list(actor)),
  createAccount: handler<{ body: api.CreateAccountRequest }>(({ portico, actor, body }) => portico.accounts.create(actor, body)),
  deleteAccount: handler<{ params: { username: string } }>(({ portico, actor, params }) => portico.accounts.delete(actor, params.username)),
  changePassword: handler<{ body: api.ChangePasswordRequest }>(({ portico, actor, body }) => portico.accounts.changePassword(actor, body)),
};
