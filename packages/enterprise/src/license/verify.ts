import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';
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
      return { ok: false, reason: 'the license signature does not verify against any known key' };
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
