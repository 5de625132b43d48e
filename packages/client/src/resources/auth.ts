import type { LoginResponse, MessageResponse, SsoProviderList, SsoProviders, WsTicket } from '@portico/api';
import type { CallOptions } from '../options.js';
import { buildQuery, trimBase } from '../paths.js';
import type { Transport } from '../transport.js';

export interface AuthApi {
  /** `POST /api/v1/auth/local/login`. */
  login(credentials: { username: string; password: string }, opts?: CallOptions): Promise<LoginResponse>;
  /** `POST /api/v1/auth/logout`: revokes the token the client holds. */
  logout(opts?: CallOptions): Promise<MessageResponse>;
  /** `POST /api/v1/auth/token-exchange`: the one-time code of an SSO sign-in → a session token. */
  tokenExchange(code: string, opts?: CallOptions): Promise<LoginResponse>;
  /** `GET /api/v1/auth/oidc/providers`: the sign-in options (provider names, login URLs, local login). */
  providers(opts?: CallOptions): Promise<SsoProviders>;
  /** `GET /api/v1/settings/sso/providers`: one object per identity provider, with its public client facts. */
  providerList(opts?: CallOptions): Promise<SsoProviderList>;
  /** `POST /api/v1/ws/ticket`: a single-use WebSocket ticket. */
  wsTicket(opts?: CallOptions): Promise<WsTicket>;
  /** Where a browser starts an SSO sign-in (`GET /api/v1/auth/oidc/login`); no request is made. */
  oidcLoginUrl(query?: { provider?: string; redirect?: string }): string;
}

export const authApi = (call: Transport, baseUrl: string): AuthApi => ({
  login: (credentials, opts) => call('localLogin', { body: credentials }, opts),
  logout: (opts) => call('logout', {}, opts),
  tokenExchange: (code, opts) => call('tokenExchange', { body: { code } }, opts),
  providers: (opts) => call('oidcProviders', {}, opts),
  providerList: (opts) => call('ssoProviders', {}, opts),
  wsTicket: (opts) => call('wsTicket', {}, opts),
  oidcLoginUrl: (query = {}) => `${trimBase(baseUrl)}/api/v1/auth/oidc/login${buildQuery(query)}`,
});
