export { createSsoProviderRegistry, type SsoProviderRegistry } from './provider-registry.js';
export { createSsoProviders, type SsoProvidersService } from './sso-providers.js';
