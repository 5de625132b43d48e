export { createAuth, type Auth, type AuthDeps } from './create-auth.js';
export { hashPassword, verifyPassword, generatePassword, DEFAULT_SCRYPT_PARAMS, type ScryptParams } from './passwords.js';
export { createSecretStore, type SecretStore, type SecretData, type SecretChanges, type SecretUpdate } from './secrets.js';
export { SIGNING_KEY_SECRET, SIGNING_KEY_FIELD, loadSigningKey } from './signing-key.js';
export { ADMIN_SECRET, INITIAL_ADMIN_SECRET } from './local-admin.js';
export { ACCOUNTS_SECRET } from './account-store.js';
export { ADMIN_USERNAME, type LocalAccount } from './local-account.js';
export { TOKEN_AUDIENCE, CLOCK_TOLERANCE_SECONDS, INVALID_TOKEN, type Identity } from './tokens.js';
export { TICKET_TTL_MS } from './tickets.js';
export { INVALID_CREDENTIALS } from './local-login.js';
export { noIdentityProviders, type IdentityProviders } from './identity-providers.js';
export { describeActor } from './describe.js';
export {
  createOidc, loadOidcSettings, oidcServerAdmins, oidcActorId, validateRedirect, OIDC_SECRET, clientSecretKey,
  type OidcDeps, type OidcProviderSettings,
} from './oidc/index.js';
