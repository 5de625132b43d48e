import { PorticoError } from '@portico/core';
import type { Evaluated } from './status.js';

export type Access = 'read' | 'write';

/** 402 LICENSE_REQUIRED naming the feature, and why when it is not simply unlicensed. */
const licenseRequired = (feature: string, reason?: string) =>
  new PorticoError('LICENSE_REQUIRED', reason === 'license_expired' ? `the license has expired: ${feature} is read-only until it is renewed` : `${feature} requires a Portico Enterprise license that includes it`, {
    feature,
    ...(reason && { reason }),
  });

/**
 * The gate of contract §12.1 for one feature: throws 402 when the request may not run, otherwise returns the
 * warnings to send in `X-License-Warning` (empty when there is nothing to say). Seats over the limit warn,
 * never lock anybody out.
 */
export function gateFeature(evaluated: Evaluated, feature: string, access: Access, seatsUsed: number): string[] {
  const { state, claims } = evaluated;
  if (state === 'missing' || state === 'invalid' || !claims) throw licenseRequired(feature);
  if (!claims.features.includes(feature)) throw licenseRequired(feature);
  if (state === 'expired' && access === 'write') throw licenseRequired(feature, 'license_expired');
  const warnings: string[] = [];
  if (state === 'grace_period' || state === 'expired') warnings.push('expired');
  if (claims.maxUsers > 0 && seatsUsed > claims.maxUsers) warnings.push('seats_exceeded');
  return warnings;
}
