import type * as api from '@portico/api';
import { createDiscovery, type Discovery } from './discovery.js';
import type { OidcProviderSettings } from './settings.js';

export interface Provider {
  settings: OidcProviderSettings;
  discovery: Discovery;
}

/** The providers a sign-in may use right now: those of the environment, then those managed at run time. */
export interface ProviderSet {
  all(): Provider[];
  get(name: string): Provider | undefined;
}

/** Where providers managed at run time come from (the cluster's ConfigMaps and Secrets, auth/sso). */
export interface RuntimeProviderSource {
  /** The complete providers, sorted by name; none that shares a name with an environment provider. */
  providers(): readonly OidcProviderSettings[];
}

export const loginUrlOf = (name: string) => `/api/v1/auth/oidc/login?provider=${encodeURIComponent(name)}`;

/** The public facts of a provider, as Form A of the sign-in options lists them (§11.6): never its secret. */
export const providerListItem = (settings: OidcProviderSettings): api.SsoProvider => ({
  name: settings.name,
  displayName: settings.displayName,
  loginUrl: loginUrlOf(settings.name),
  issuerURL: settings.issuer,
  clientID: settings.clientId,
  redirectURL: settings.redirectUri,
  scopes: [...settings.scopes],
  tokenEndpointAuthMethod: settings.tokenEndpointAuthMethod ?? 'client_secret_basic',
});

/** Discovery is worth keeping across changes that leave the provider's issuer and endpoints as they were. */
const discoveryKey = (s: OidcProviderSettings) => JSON.stringify([s.name, s.issuer, s.endpoints ?? null]);

export function createProviderSet(fixed: readonly OidcProviderSettings[], runtime: RuntimeProviderSource | undefined, now: () => number): ProviderSet {
  const discoveries = new Map<string, Discovery>();
  const discoveryOf = (settings: OidcProviderSettings) => {
    const key = discoveryKey(settings);
    let discovery = discoveries.get(key);
    if (!discovery) {
      discovery = createDiscovery(settings.issuer, { now, endpoints: settings.endpoints });
      discoveries.set(key, discovery);
    }
    return discovery;
  };
  const wrapped = new WeakMap<OidcProviderSettings, Provider>();
  const providerOf = (settings: OidcProviderSettings): Provider => {
    let provider = wrapped.get(settings);
    if (!provider) {
      provider = { settings, discovery: discoveryOf(settings) };
      wrapped.set(settings, provider);
    }
    return provider;
  };
  const fixedProviders = fixed.map(providerOf);
  const fixedKeys = new Set(fixed.map(discoveryKey));
  let prunedFor: readonly OidcProviderSettings[] | undefined;

  const managed = () => {
    const list = runtime?.providers() ?? [];
    if (list !== prunedFor) {
      // The list changed: forget the discovery of providers that were removed or moved to another issuer.
      prunedFor = list;
      const live = new Set([...fixedKeys, ...list.map(discoveryKey)]);
      for (const key of discoveries.keys()) if (!live.has(key)) discoveries.delete(key);
    }
    return list;
  };

  return {
    all: () => [...fixedProviders, ...managed().map(providerOf)],
    get(name) {
      const found = fixedProviders.find((p) => p.settings.name === name);
      if (found) return found;
      const settings = managed().find((s) => s.name === name);
      return settings && providerOf(settings);
    },
  };
}
