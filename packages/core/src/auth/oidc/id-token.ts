import { jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { CLOCK_TOLERANCE_SECONDS } from '../tokens.js';
import type { ProviderMetadata } from './discovery.js';
import { fetchJson } from './http.js';

/** Asymmetric algorithms only: an HMAC-signed ID token would be verified with the client secret, which the browser side may know. */
const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

export class IdTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IdTokenError';
  }
}

/**
 * OpenID Connect Core §3.1.3.7: signature against the provider's JWKS, issuer, audience (our client id),
 * `azp` when there are several audiences, expiry, and the nonce of this very sign-in.
 */
export async function verifyIdToken(
  idToken: string,
  expected: { keys: JWTVerifyGetKey; metadata: ProviderMetadata; clientId: string; nonce: string; now: () => number },
): Promise<JWTPayload> {
  const offered = expected.metadata.idTokenSigningAlgs ?? ['RS256'];
  const algorithms = ASYMMETRIC.filter((alg) => offered.includes(alg));
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, expected.keys, {
      algorithms,
      issuer: expected.metadata.issuer,
      audience: expected.clientId,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: new Date(expected.now()),
      requiredClaims: ['sub', 'iat', 'exp'],
    }));
  } catch (e) {
    throw new IdTokenError(`ID token rejected: ${(e as { code?: string }).code ?? (e as Error).name}`);
  }
  if (payload.nonce !== expected.nonce) throw new IdTokenError('ID token nonce does not match this sign-in');
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if ((audiences.length > 1 || payload.azp !== undefined) && payload.azp !== expected.clientId) {
    throw new IdTokenError('ID token azp is not this client');
  }
  return payload;
}

/**
 * Claims the ID token left out, from the UserInfo endpoint (providers that keep groups out of ID tokens).
 * The answer counts only for the same subject (OpenID Connect Core §5.3.2).
 */
export async function userinfoClaims(metadata: ProviderMetadata, accessToken: string, sub: string): Promise<Record<string, unknown>> {
  if (!metadata.userinfoEndpoint) return {};
  const claims = await fetchJson(metadata.userinfoEndpoint, { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } });
  if (claims.sub !== sub) throw new Error('userinfo is for another subject');
  return claims;
}
