export { createOidc, type OidcDeps } from './create-oidc.js';
export { loadOidcSettings, oidcServerAdmins, OIDC_SECRET, clientSecretKey, type OidcProviderSettings, type ClientSecretSource, type TokenEndpointAuthMethod } from './settings.js';
export { validateRedirect, withParams } from './safe-redirect.js';
export { oidcActorId } from './identity.js';
