import type { ProviderMetadata } from './discovery.js';
import { fetchJson } from './http.js';
import type { OidcProviderSettings, TokenEndpointAuthMethod } from './settings.js';

interface CodeExchange {
  code: string;
  verifier: string;
  clientSecret: string | undefined;
}

interface ProviderTokens {
  idToken: string;
  accessToken?: string;
}

/** RFC 6749 §2.3.1: id and secret are form-encoded before they go into the Basic credentials. */
const formEncode = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');

/** The forced method, else what discovery offers: Basic first (the spec's default), then POST. */
function authMethodFor(settings: OidcProviderSettings, metadata: ProviderMetadata, secret: string | undefined): TokenEndpointAuthMethod {
  if (secret === undefined) return 'none';
  if (settings.tokenEndpointAuthMethod) return settings.tokenEndpointAuthMethod;
  const offered = metadata.tokenEndpointAuthMethods ?? ['client_secret_basic'];
  if (offered.includes('client_secret_basic')) return 'client_secret_basic';
  if (offered.includes('client_secret_post')) return 'client_secret_post';
  return 'client_secret_basic';
}

/** The authorization code grant with the PKCE verifier (RFC 6749 §4.1.3, RFC 7636 §4.5). */
export async function exchangeCode(settings: OidcProviderSettings, metadata: ProviderMetadata, exchange: CodeExchange): Promise<ProviderTokens> {
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code: exchange.code,
    redirect_uri: settings.redirectUri,
    code_verifier: exchange.verifier,
  });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  const method = authMethodFor(settings, metadata, exchange.clientSecret);
  if (method === 'client_secret_basic') {
    headers.authorization = `Basic ${Buffer.from(`${formEncode(settings.clientId)}:${formEncode(exchange.clientSecret!)}`).toString('base64')}`;
  } else {
    form.set('client_id', settings.clientId);
    if (method === 'client_secret_post' && exchange.clientSecret !== undefined) form.set('client_secret', exchange.clientSecret);
  }
  const body = await fetchJson(metadata.tokenEndpoint, { method: 'POST', headers, body: form.toString() });
  if (typeof body.id_token !== 'string' || !body.id_token) throw new Error('token response has no id_token');
  return { idToken: body.id_token, accessToken: typeof body.access_token === 'string' ? body.access_token : undefined };
}
