import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import { fetchJson, IDP_TIMEOUT_MS } from './http.js';

/** The parts of a provider's discovery document Portico uses. */
export interface ProviderMetadata {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
  userinfoEndpoint?: string;
  tokenEndpointAuthMethods?: string[];
  idTokenSigningAlgs?: string[];
  /** RFC 9207: the provider puts `iss` on its authorization responses, so one without it is refused. */
  issParameterSupported: boolean;
}

/** Discovery cached per provider: one fetch shared by concurrent sign-ins, dropped on failure. */
export interface Discovery {
  metadata(): Promise<ProviderMetadata>;
  /** The provider's signing keys (jose's remote JWKS: cached, refetched for an unknown `kid`). */
  keys(): Promise<JWTVerifyGetKey>;
  /** Forgets the cached document (a step that used it failed), so the next sign-in fetches it again. */
  invalidate(): void;
}

const DISCOVERY_TTL_MS = 60 * 60 * 1000;

const discoveryUrl = (issuer: string) => `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;

export const sameIssuer = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/**
 * Endpoints must be https, or http only when the issuer itself is (a loopback or development provider):
 * a discovery document cannot downgrade where codes and secrets are sent.
 */
function endpoint(doc: Record<string, unknown>, field: string, issuer: URL, required: boolean): string | undefined {
  const value = doc[field];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string') throw new Error(`discovery document lacks ${field}`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`discovery document ${field} is not a URL`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && issuer.protocol === 'http:')) {
    throw new Error(`discovery document ${field} must use https`);
  }
  return url.href;
}

const strings = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : undefined);

async function fetchMetadata(issuer: string): Promise<ProviderMetadata> {
  const doc = await fetchJson(discoveryUrl(issuer), { headers: { accept: 'application/json' } });
  // OpenID Connect Discovery §4.3: the document must be for the issuer we asked about.
  if (typeof doc.issuer !== 'string' || !sameIssuer(doc.issuer, issuer)) throw new Error('discovery document is for another issuer');
  const issuerUrl = new URL(issuer);
  return {
    issuer: doc.issuer,
    authorizationEndpoint: endpoint(doc, 'authorization_endpoint', issuerUrl, true)!,
    tokenEndpoint: endpoint(doc, 'token_endpoint', issuerUrl, true)!,
    jwksUri: endpoint(doc, 'jwks_uri', issuerUrl, true)!,
    userinfoEndpoint: endpoint(doc, 'userinfo_endpoint', issuerUrl, false),
    tokenEndpointAuthMethods: strings(doc.token_endpoint_auth_methods_supported),
    idTokenSigningAlgs: strings(doc.id_token_signing_alg_values_supported),
    issParameterSupported: doc.authorization_response_iss_parameter_supported === true,
  };
}

/** What a provider without a discovery document is known by: its three endpoints, set by hand. */
export interface ManualEndpoints {
  authorization: string;
  token: string;
  jwks: string;
}

const manualMetadata = (issuer: string, endpoints: ManualEndpoints): ProviderMetadata => ({
  issuer,
  authorizationEndpoint: endpoints.authorization,
  tokenEndpoint: endpoints.token,
  jwksUri: endpoints.jwks,
  issParameterSupported: false,
});

export function createDiscovery(issuer: string, opts: { now?: () => number; ttlMs?: number; endpoints?: ManualEndpoints } = {}): Discovery {
  const now = opts.now ?? Date.now;
  const ttlMs = opts.ttlMs ?? DISCOVERY_TTL_MS;
  const manual = opts.endpoints && manualMetadata(issuer, opts.endpoints);
  let cached: { at: number; metadata: Promise<ProviderMetadata> } | undefined;
  let jwks: { uri: string; keys: JWTVerifyGetKey } | undefined;

  const metadata = () => {
    if (manual) return Promise.resolve(manual);
    if (!cached || now() - cached.at > ttlMs) {
      const entry = { at: now(), metadata: fetchMetadata(issuer) };
      cached = entry;
      // A failed fetch is never served from the cache: the next sign-in tries again.
      entry.metadata.catch(() => {
        if (cached === entry) cached = undefined;
      });
    }
    return cached.metadata;
  };

  return {
    metadata,
    async keys() {
      const { jwksUri } = await metadata();
      if (jwks?.uri !== jwksUri) {
        jwks = { uri: jwksUri, keys: createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: IDP_TIMEOUT_MS, cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 }) };
      }
      return jwks.keys;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
