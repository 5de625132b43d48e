import { compactVerify, createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import { cleanLicenseText, LICENSED_EDITION, LicenseClaims } from './claims.js';

export type VerifiedLicense = { ok: true; claims: LicenseClaims } | { ok: false; reason: string };

export type LicenseVerifier = (token: string) => Promise<VerifiedLicense>;

/**
 * Offline verification: the signature must be EdDSA by one of the known keys (an `alg: none`, HS256 or RS256
 * token, or a key not in the set, is refused before any claim is read), and the `edition` must be `enterprise`.
 * Dates are not checked here: a signed but expired license is still *this customer's* license, and its status
 * says what it allows.
 */
export function createLicenseVerifier(keys: JSONWebKeySet): LicenseVerifier {
  const keySet = createLocalJWKSet(keys);
  return async (token) => {
    let payload: Uint8Array;
    try {
      ({ payload } = await compactVerify(token.trim(), keySet, { algorithms: ['EdDSA'] }));
    } catch {
      return { ok: false, reason: signatureRefusal(token, keys) };
    }
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder().decode(payload));
    } catch {
      return { ok: false, reason: 'the license payload is not JSON' };
    }
    const claims = LicenseClaims.safeParse(json);
    if (!claims.success) return { ok: false, reason: `the license claims are incomplete: ${claims.error.issues.map((i) => i.path.join('.') || i.message).join(', ')}` };
    // Correctly signed, but for another edition (or product): it licenses nothing here (§12.1).
    if (claims.data.edition !== LICENSED_EDITION) {
      return { ok: false, reason: `the license is for the "${cleanLicenseText(claims.data.edition).slice(0, 40)}" edition, not ${LICENSED_EDITION}` };
    }
    return { ok: true, claims: claims.data };
  };
}

/** The kid of the repository's example key, whose private half is public: trusted only where asked to be. */
const EXAMPLE_KEY_ID = 'portico-example-throwaway';

/**
 * Why a signature was refused, in words that lead to the fix: a license signed with a key this server does not
 * know names that key and the setting that adds one, instead of leaving an evaluator to read the source.
 */
function signatureRefusal(token: string, keys: JSONWebKeySet): string {
  let kid: string | undefined;
  try {
    const header = decodeProtectedHeader(token.trim());
    kid = typeof header.kid === 'string' ? cleanLicenseText(header.kid).slice(0, 80) : undefined;
  } catch {
    return 'the license is not a signed token (a JWT of three dot-separated parts)';
  }
  if (kid && !keys.keys.some((k) => k.kid === kid)) {
    const example = kid === EXAMPLE_KEY_ID
      ? ' It is the repository\'s example evaluation key: `npm run start:enterprise` trusts it in development; elsewhere set PORTICO_LICENSE_KEYS=examples/enterprise/throwaway-public.jwks.json (never in production).'
      : '';
    return `the license is signed with key "${kid}", which this server does not trust: add its public key to the JWKS file named by PORTICO_LICENSE_KEYS and restart.${example}`;
  }
  return `the license signature does not verify against ${kid ? `key "${kid}"` : 'any known key'} (altered, or signed with another algorithm than EdDSA)`;
}
