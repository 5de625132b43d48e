import type * as api from '@portico/api';
import { badRequest, notFound } from '../errors.js';
import type { RequestContext } from '../types.js';
import type { Identity } from './tokens.js';

/**
 * The seam for single sign-on. The OIDC module (auth/oidc/, `createOidc`) implements this; createAuth turns
 * the identity `exchange` returns into a Portico token exactly as it does for a local sign-in.
 */
export interface IdentityProviders {
  /** Sign-in options for the login page (both forms of the route). */
  options(): api.SsoProviders;
  /** The same providers one object each, with the public facts of their client registration (Form A). */
  providerList(): api.SsoProviderList;
  /** The identity provider URL to send the browser to. */
  login(query: api.OidcLoginQuery, ctx: RequestContext): Promise<string>;
  /** Where to send the browser back to (`redirect?code=` or `?error=`). */
  callback(query: api.OidcCallbackQuery, ctx: RequestContext): Promise<string>;
  /** Redeems the one-time code handed out by `callback`. */
  exchange(input: api.TokenExchangeRequest, ctx: RequestContext): Promise<Identity>;
}

const NOT_CONFIGURED = 'no identity provider is configured';

/** No identity provider configured: local sign-in only. */
export const noIdentityProviders = (): IdentityProviders => ({
  options: () => ({ providers: [], options: [], localLoginEnabled: true }),
  providerList: () => [],
  async login(query) {
    if (query.provider) throw notFound('oidc provider', query.provider);
    throw badRequest(NOT_CONFIGURED);
  },
  async callback() {
    throw badRequest(NOT_CONFIGURED);
  },
  async exchange() {
    throw badRequest(NOT_CONFIGURED);
  },
});
