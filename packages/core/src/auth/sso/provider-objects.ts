import * as api from '@portico/api';
import type { KubeObject } from '../../ports/cluster.js';
import { DEFAULT_GROUPS_CLAIM, DEFAULT_SCOPES, type OidcProviderSettings } from '../oidc/settings.js';

/**
 * How a sign-in provider managed at run time (§11.6) lives in the cluster: a ConfigMap `portico-sso-<name>` with
 * its public settings and a Secret of the same name with its client ID and secret, both in Portico's namespace
 * and labelled `portico.dev/sso-provider: "true"`. Flat string keys, so kubectl and GitOps write them as easily
 * as the API does; the ConfigMap is what makes the provider exist.
 */
export const PROVIDER_LABEL = 'portico.dev/sso-provider';
const PREFIX = 'portico-sso-';
export const providerLabels = { [PROVIDER_LABEL]: 'true', 'app.kubernetes.io/managed-by': 'portico', 'app.kubernetes.io/part-of': 'portico' };

export const objectNameOf = (provider: string) => `${PREFIX}${provider}`;
export const providerNameOf = (object: KubeObject) =>
  object.metadata.name.startsWith(PREFIX) ? object.metadata.name.slice(PREFIX.length) : undefined;
export const isProviderObject = (object: KubeObject) => object.metadata.labels?.[PROVIDER_LABEL] === 'true' && providerNameOf(object) !== undefined;

/** Secret keys. */
export const CLIENT_ID = 'clientID';
export const CLIENT_SECRET = 'clientSecret';

/** The ConfigMap keys (all but the secret and the name, which is the object's). */
const PUBLIC_KEYS = ['displayName', 'issuerURL', 'redirectURL', 'scopes', 'tokenEndpointAuthMethod', 'authorizationURL', 'tokenURL', 'jwksURL'] as const;
type PublicKey = (typeof PUBLIC_KEYS)[number];

/** `openid` first: an OpenID Connect sign-in needs it, whatever else the admin asked for. */
export const scopesOf = (asked: readonly string[]) => {
  const scopes = asked.length ? [...new Set(asked)] : DEFAULT_SCOPES;
  return scopes.includes('openid') ? scopes : ['openid', ...scopes];
};

/** The ConfigMap data for a provider's settings; keys of absent optional settings are `null` (removed by a merge patch). */
export function configMapData(input: api.UpdateSsoProviderRequest): Record<PublicKey, string | null> {
  return {
    displayName: input.displayName ?? null,
    issuerURL: input.issuerURL,
    redirectURL: input.redirectURL,
    scopes: scopesOf(input.scopes).join(' '),
    tokenEndpointAuthMethod: input.tokenEndpointAuthMethod,
    authorizationURL: input.authorizationURL ?? null,
    tokenURL: input.tokenURL ?? null,
    jwksURL: input.jwksURL ?? null,
  };
}

export const presentOnly = (data: Record<string, string | null>): Record<string, string> =>
  Object.fromEntries(Object.entries(data).filter((e): e is [string, string] => e[1] !== null));

const decoded = (secret: KubeObject | undefined, key: string) => {
  const value = secret?.data?.[key];
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8').trim() || undefined;
};

export type ParsedProvider = { ok: true; settings: OidcProviderSettings } | { ok: false; reason: string };

/**
 * A provider from its ConfigMap and Secret, checked with the rules of the API (a hand-written ConfigMap gets no
 * looser ones). Without a client ID (its Secret not written, or not seen yet) it is not usable: `clientId` is ''.
 */
export function parseProvider(configMap: KubeObject, secret: KubeObject | undefined): ParsedProvider {
  const name = providerNameOf(configMap) ?? '';
  const data = configMap.data ?? {};
  const raw = {
    name,
    ...Object.fromEntries(PUBLIC_KEYS.map((k) => [k, data[k]])),
    scopes: (data.scopes ?? '').split(/\s+/).filter(Boolean),
    clientID: decoded(secret, CLIENT_ID) ?? 'unset',
  };
  const parsed = api.UpdateSsoProviderRequest.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, reason: `${issue.path.join('.') || 'data'}: ${issue.message}` };
  }
  const p = parsed.data;
  const settings: OidcProviderSettings = {
    name,
    displayName: p.displayName ?? name,
    issuer: p.issuerURL,
    clientId: decoded(secret, CLIENT_ID) ?? '',
    // Read from the cluster at each code exchange, like the environment's `portico-oidc` Secret.
    clientSecret: { from: 'secret', secret: objectNameOf(name), key: CLIENT_SECRET },
    tokenEndpointAuthMethod: p.tokenEndpointAuthMethod,
    scopes: scopesOf(p.scopes),
    groupsClaim: DEFAULT_GROUPS_CLAIM,
    serverAdminGroups: [],
    redirectUri: p.redirectURL,
    uid: configMap.metadata.uid ?? configMap.metadata.name,
  };
  if (p.authorizationURL && p.tokenURL && p.jwksURL) settings.endpoints = { authorization: p.authorizationURL, token: p.tokenURL, jwks: p.jwksURL };
  return { ok: true, settings };
}

/** Whether the provider's Secret holds a client secret (a confidential client keeps it across updates). */
export const hasClientSecret = (secret: KubeObject | undefined) => decoded(secret, CLIENT_SECRET) !== undefined;
