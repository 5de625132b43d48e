import { CreateSsoProviderRequest, SsoProviderDetail, SsoProviderParams, UpdateSsoProviderRequest } from './sso-providers.js';
import { r } from './route-def.js';

/**
 * §11.6: sign-in providers a Server Admin (policy `settings`) manages at run time. The public list,
 * `GET /settings/sso/providers`, is the row `ssoProviders` of §2 in routes.ts.
 */
export const ssoProviderRoutes = [
  r({ id: 'getSsoProvider', method: 'GET', path: '/api/v1/settings/sso/providers/{name}', auth: 'user', tag: 'settings', summary: 'One sign-in provider (Server Admin); never its client secret', params: SsoProviderParams, status: 200, response: SsoProviderDetail }),
  r({ id: 'createSsoProvider', method: 'POST', path: '/api/v1/settings/sso/providers', auth: 'user', tag: 'settings', summary: 'Add a sign-in provider (Server Admin); every replica offers it within seconds', body: CreateSsoProviderRequest, status: 201, response: SsoProviderDetail, operation: 'ssoProviders.create' }),
  r({ id: 'updateSsoProvider', method: 'PUT', path: '/api/v1/settings/sso/providers/{name}', auth: 'user', tag: 'settings', summary: 'Replace a sign-in provider\'s settings (Server Admin); an empty clientSecret keeps the stored one', params: SsoProviderParams, body: UpdateSsoProviderRequest, status: 200, response: SsoProviderDetail, operation: 'ssoProviders.update' }),
  r({ id: 'deleteSsoProvider', method: 'DELETE', path: '/api/v1/settings/sso/providers/{name}', auth: 'user', tag: 'settings', summary: 'Remove a sign-in provider (Server Admin); its sign-ins in progress end, sessions stay', params: SsoProviderParams, status: 204, operation: 'ssoProviders.delete' }),
] as const;
