import { z } from 'zod';
import { Timestamp } from './common.js';

export const User = z.object({
  id: z.string(),
  email: z.string(),
  displayName: z.string(),
  groups: z.array(z.string()),
  projects: z.array(z.string()),
  roles: z.record(z.string(), z.string()),
  casbinRoles: z.array(z.string()),
});
export type User = z.infer<typeof User>;

export const LocalLoginRequest = z.object({
  username: z.string().min(1).max(253),
  password: z.string().min(1).max(1024),
});
export type LocalLoginRequest = z.infer<typeof LocalLoginRequest>;

export const LoginResponse = z.object({ token: z.string(), expiresAt: Timestamp, user: User });
export type LoginResponse = z.infer<typeof LoginResponse>;

export const TokenExchangeRequest = z.object({ code: z.string().min(1).max(512) });
export type TokenExchangeRequest = z.infer<typeof TokenExchangeRequest>;

export const OidcLoginQuery = z.object({
  provider: z.string().max(64).optional(),
  redirect: z.string().max(2048).optional(),
});
export type OidcLoginQuery = z.infer<typeof OidcLoginQuery>;

export const OidcCallbackQuery = z.object({
  code: z.string().max(4096).optional(),
  state: z.string().max(512).optional(),
  error: z.string().max(512).optional(),
  error_description: z.string().max(2048).optional(),
  iss: z.string().max(2048).optional(),
});
export type OidcCallbackQuery = z.infer<typeof OidcCallbackQuery>;

export const SsoProviders = z.object({
  providers: z.array(z.string()),
  options: z.array(z.object({ name: z.string(), displayName: z.string(), loginUrl: z.string() })),
  localLoginEnabled: z.boolean(),
});
export type SsoProviders = z.infer<typeof SsoProviders>;

/** How Portico authenticates at a provider's token endpoint (`client_secret_post`: environment providers only). */
export const TokenEndpointAuthMethod = z.enum(['client_secret_basic', 'client_secret_post', 'none']);
export type TokenEndpointAuthMethod = z.infer<typeof TokenEndpointAuthMethod>;

/** Form A's answer (§11.6): one object per provider, public facts only (never the client secret). */
export const SsoProvider = z.object({
  name: z.string(),
  displayName: z.string(),
  loginUrl: z.string(),
  issuerURL: z.string(),
  clientID: z.string(),
  redirectURL: z.string(),
  scopes: z.array(z.string()),
  tokenEndpointAuthMethod: TokenEndpointAuthMethod,
});
export type SsoProvider = z.infer<typeof SsoProvider>;
export const SsoProviderList = z.array(SsoProvider);
export type SsoProviderList = z.infer<typeof SsoProviderList>;

export const WsTicket = z.object({ ticket: z.string(), expiresAt: Timestamp });
export type WsTicket = z.infer<typeof WsTicket>;

/** §2.1 local accounts. */
export const Account = z.object({
  username: z.string(),
  groups: z.array(z.string()),
  createdAt: Timestamp,
});
export type Account = z.infer<typeof Account>;

export const AccountList = z.object({ items: z.array(Account), totalCount: z.number().int() });
export type AccountList = z.infer<typeof AccountList>;

export const Username = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9]([a-z0-9._-]*[a-z0-9])?$/, 'must be lower-case letters, digits, ".", "_" or "-", starting and ending alphanumeric');

export const Password = z.string().min(8, 'must be at least 8 characters').max(1024);

export const CreateAccountRequest = z.object({
  username: Username,
  password: Password,
  groups: z.array(z.string().min(1).max(253).regex(/^[A-Za-z0-9][A-Za-z0-9._@+:=-]*$/, 'invalid group name')).max(100).default([]),
});
export type CreateAccountRequest = z.infer<typeof CreateAccountRequest>;

export const ChangePasswordRequest = z.object({ currentPassword: z.string().min(1).max(1024), newPassword: Password });
export type ChangePasswordRequest = z.infer<typeof ChangePasswordRequest>;
