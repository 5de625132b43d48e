export { createOidc, INVALID_CODE, INVALID_STATE, type OidcDeps } from './create-oidc.js';
export {
  loadOidcSettings, oidcServerAdmins, OIDC_SECRET, clientSecretKey, CALLBACK_PATH, DEFAULT_SCOPES, DEFAULT_GROUPS_CLAIM,
  type OidcProviderSettings, type ClientSecretSource, type TokenEndpointAuthMethod,
} from './settings.js';
export { validateRedirect, withParams, DEFAULT_REDIRECT } from './safe-redirect.js';
export { oidcActorId } from './identity.js';
export { STATE_TTL_MS, CODE_TTL_MS } from './flow-store.js';
