import type { EnterpriseFamily } from '@portico/api';
import { licenseRequired } from '@portico/core';
import { routeNotFound } from './errors.js';

/** The family a path belongs to: the prefix itself or anything below it, any method, any depth. */
export function enterpriseFamilyOf(families: readonly EnterpriseFamily[], pathname: string): EnterpriseFamily | undefined {
  // Matching is case-insensitive (as route dispatch is), or `/API/v1/License` would slip past the gate.
  const path = pathname.toLowerCase().replace(/\/+$/, '');
  return families.find((f) => path === f.prefix || path.startsWith(`${f.prefix}/`));
}

/**
 * The OSS build's answer for an Enterprise family (§8): 402 LICENSE_REQUIRED naming the feature, or a 404
 * indistinguishable from an unknown route for families that OSS does not even advertise.
 */
export const ossEditionAnswer = (family: EnterpriseFamily, pathname: string) =>
  family.ossStatus === 402 ? licenseRequired(family.feature) : routeNotFound(pathname);
