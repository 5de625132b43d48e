import type { LicenseState, LicenseStatus } from '@portico/api/enterprise';
import type { LicenseClaims } from './claims.js';
import type { VerifiedLicense } from './verify.js';

/** After `exp`, a license keeps full service this long, with a warning header (contract §12.1). */
export const GRACE_PERIOD_MS = 7 * 24 * 60 * 60 * 1000;

/** What the replica currently holds: nothing, or a token and what its verification said. */
export type LicenseSource = { token?: undefined } | { token: string; verified: VerifiedLicense };

export interface Evaluated {
  state: LicenseState;
  message: string;
  claims?: LicenseClaims;
  gracePeriodEnd?: Date;
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** The state of a license at `now`; pure, so every replica holding the same token says the same. */
export function evaluateLicense(source: LicenseSource, now: Date): Evaluated {
  if (!source.token) return { state: 'missing', message: 'no license is installed' };
  const { verified } = source;
  if (!verified.ok) return { state: 'invalid', message: verified.reason };
  const claims = verified.claims;
  const at = now.getTime();
  if (claims.nbf !== undefined && claims.nbf * 1000 > at) return { state: 'invalid', message: `the license is not valid before ${iso(claims.nbf)}`, claims };
  const expiresAt = claims.exp * 1000;
  const gracePeriodEnd = new Date(expiresAt + GRACE_PERIOD_MS);
  if (at < expiresAt) return { state: 'valid', message: `licensed to ${claims.sub} until ${iso(claims.exp)}`, claims };
  // The grace period includes its last millisecond: exactly 7 days after `exp` is still grace, a millisecond later is not.
  if (at <= gracePeriodEnd.getTime())
    return { state: 'grace_period', message: `the license expired on ${iso(claims.exp)}; full service continues until ${gracePeriodEnd.toISOString()}`, claims, gracePeriodEnd };
  return { state: 'expired', message: `the license expired on ${iso(claims.exp)}; reads are served, changes need a renewed license`, claims, gracePeriodEnd };
}

/** The body of `GET /api/v1/license`. */
export function licenseStatusBody(evaluated: Evaluated, seatsUsed: number): LicenseStatus {
  const { claims } = evaluated;
  const max = claims?.maxUsers ?? 0;
  const overSeats = max > 0 && seatsUsed > max;
  return {
    licensed: evaluated.state === 'valid' || evaluated.state === 'grace_period',
    enterprise: true,
    status: evaluated.state,
    message: overSeats ? `${evaluated.message}; ${seatsUsed} active users exceed the ${max} seats licensed` : evaluated.message,
    ...(claims && {
      license: {
        licenseId: claims.lid,
        customer: claims.sub,
        edition: claims.edition,
        features: [...claims.features],
        maxUsers: claims.maxUsers,
        issuedAt: iso(claims.iat),
        expiresAt: iso(claims.exp),
      },
    }),
    ...(evaluated.gracePeriodEnd && { gracePeriodEnd: evaluated.gracePeriodEnd.toISOString() }),
    seats: { used: seatsUsed, max },
  };
}
