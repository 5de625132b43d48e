import type { EnterpriseFamily } from '@portico/api';
import { licenseRequired } from '@portico/core';
import { routeNotFound } from './errors.js';

/**
 * The Enterprise family a path belongs to (the prefix itself or anything below it, any method, any depth), for
 * one set of families, with what it compares against prepared once: it runs on every request.
 */
export function editionGate(families: readonly EnterpriseFamily[]): (pathname: string) => EnterpriseFamily | undefined {
  const prepared = families.map((family) => ({ family, prefix: family.prefix, below: `${family.prefix}/` }));
  if (prepared.length === 0) return () => undefined;
  return (pathname) => {
    // Matching is case-insensitive (as route dispatch is), or `/API/v1/License` would slip past the gate.
    let path = pathname.toLowerCase();
    if (path.endsWith('/')) path = path.replace(/\/+$/, '');
    for (const p of prepared) if (path === p.prefix || path.startsWith(p.below)) return p.family;
    return undefined;
  };
}

/**
 * The OSS build's answer for an Enterprise family (§8): 402 LICENSE_REQUIRED naming the feature, or a 404
 * indistinguishable from an unknown route for families that OSS does not even advertise.
 */
export const ossEditionAnswer = (family: EnterpriseFamily, pathname: string) =>
  family.ossStatus === 402 ? licenseRequired(family.feature) : routeNotFound(pathname);
