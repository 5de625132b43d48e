import type { RouteBodyInput, SsoProviderDetail, SsoProviderList } from '@portico/api';
import type { CallOptions } from '../options.js';
import type { Transport } from '../transport.js';

/** The fields of a provider as the Server Admin writes them (§11.6); `clientSecret` is never read back. */
export type SsoProviderInput = RouteBodyInput<'createSsoProvider'>;
/** A PUT replaces every field but the name; an empty or absent `clientSecret` keeps the stored one. */
export type SsoProviderUpdate = RouteBodyInput<'updateSsoProvider'>;

export interface SsoProvidersApi {
  /** `GET /api/v1/settings/sso/providers`: every sign-in provider, public facts only (no token needed). */
  list(opts?: CallOptions): Promise<SsoProviderList>;
  /** `GET /api/v1/settings/sso/providers/{name}` (Server Admin). */
  get(name: string, opts?: CallOptions): Promise<SsoProviderDetail>;
  /** `POST /api/v1/settings/sso/providers` (Server Admin): every replica offers it within seconds. */
  create(input: SsoProviderInput, opts?: CallOptions): Promise<SsoProviderDetail>;
  /** `PUT /api/v1/settings/sso/providers/{name}` (Server Admin). */
  update(name: string, input: SsoProviderUpdate, opts?: CallOptions): Promise<SsoProviderDetail>;
  /** `DELETE /api/v1/settings/sso/providers/{name}` (Server Admin): its sign-ins in progress end, sessions stay. */
  delete(name: string, opts?: CallOptions): Promise<void>;
}

export const ssoProvidersApi = (call: Transport): SsoProvidersApi => ({
  list: (opts) => call('ssoProviders', {}, opts),
  get: (name, opts) => call('getSsoProvider', { params: { name } }, opts),
  create: (input, opts) => call('createSsoProvider', { body: input }, opts),
  update: (name, input, opts) => call('updateSsoProvider', { params: { name }, body: input }, opts),
  delete: (name, opts) => call('deleteSsoProvider', { params: { name } }, opts),
});
