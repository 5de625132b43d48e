import type * as api from '@portico/api';
import { routeHandlers } from './types.js';

/** §2.1 local accounts; who may do what is the domain's decision. */
export const accountsHandlers = routeHandlers({
  listAccounts: ({ portico, actor }) => portico.accounts.list(actor),
  createAccount: ({ portico, actor, body }) => portico.accounts.create(actor, body),
  deleteAccount: ({ portico, actor, params }) => portico.accounts.delete(actor, params.username),
  changePassword: ({ portico, actor, body }) => portico.accounts.changePassword(actor, body),
});
