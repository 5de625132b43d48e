import type { Account, AccountInfo, AccountList, CanISummary, CanIValue, MessageResponse, RbacAction, RbacResource } from '@portico/api';
import type { CallOptions } from '../options.js';
import type { Transport } from '../transport.js';

export interface AccountsApi {
  /** `GET /api/v1/accounts` (Server Admin). */
  list(opts?: CallOptions): Promise<AccountList>;
  /** `POST /api/v1/accounts` (Server Admin). */
  create(input: { username: string; password: string; groups?: string[] }, opts?: CallOptions): Promise<Account>;
  /** `DELETE /api/v1/accounts/{username}` (Server Admin). */
  delete(username: string, opts?: CallOptions): Promise<void>;
  /** `PUT /api/v1/account/password`: tokens issued before stop working. */
  changePassword(input: { currentPassword: string; newPassword: string }, opts?: CallOptions): Promise<MessageResponse>;
}

export interface AccountApi {
  /** `GET /api/v1/account/info`: who the token belongs to. */
  info(opts?: CallOptions): Promise<AccountInfo>;
  /**
   * `GET /api/v1/account/can-i/{resource}/{action}/{object}`: true for "yes". `object` is a project name,
   * `*` or `-`.
   */
  canI(resource: RbacResource, action: RbacAction | '*', object: string, opts?: CallOptions): Promise<boolean>;
  /** `GET /api/v1/account/can-i`: the caller's permissions per project. */
  canISummary(opts?: CallOptions): Promise<CanISummary>;
}

export const accountsApi = (call: Transport): AccountsApi => ({
  list: (opts) => call('listAccounts', {}, opts),
  create: (input, opts) => call('createAccount', { body: { groups: [], ...input } }, opts),
  delete: (username, opts) => call('deleteAccount', { params: { username } }, opts),
  changePassword: (input, opts) => call('changePassword', { body: input }, opts),
});

export const accountApi = (call: Transport): AccountApi => ({
  info: (opts) => call('getAccountInfo', {}, opts),
  canI: async (resource, action, object, opts) =>
    (await call('canI', { params: { resource, action, object } }, opts)).value === 'yes',
  canISummary: (opts) => call('canISummary', {}, opts),
});
