import type { Identity } from '../tokens.js';

const CONTROL = /[\u0000-\u001f\u007f]/;
const MAX_SUB = 255;
const MAX_TEXT = 256;
const MAX_GROUP = 253;
/** Groups ride in every Portico token: bounded so a user in thousands of groups still gets a usable token. */
const MAX_GROUPS = 100;
const MAX_GROUPS_CHARS = 4096;

/** The actor id of an identity-provider user: never equal to a local username (those cannot contain `:`). */
export const oidcActorId = (provider: string, sub: string) => `oidc:${provider}:${sub}`;

const text = (v: unknown): string => (typeof v === 'string' && v.length <= MAX_TEXT && !CONTROL.test(v) ? v.trim() : '');

/** `groups`, or a dotted path into nested claims (`realm_access.roles`). */
function claimAt(claims: Record<string, unknown>, path: string): unknown {
  if (path in claims) return claims[path];
  let value: unknown = claims;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

export const hasClaim = (claims: Record<string, unknown>, path: string) => claimAt(claims, path) !== undefined;

/** The user's groups: strings only, no control characters, bounded in number and size, de-duplicated. */
export function groupsFrom(claims: Record<string, unknown>, groupsClaim: string): { groups: string[]; truncated: boolean } {
  const raw = claimAt(claims, groupsClaim);
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
  const groups: string[] = [];
  let chars = 0;
  let truncated = false;
  for (const g of list) {
    if (typeof g !== 'string' || !g || g.length > MAX_GROUP || CONTROL.test(g) || groups.includes(g)) continue;
    if (groups.length >= MAX_GROUPS || chars + g.length > MAX_GROUPS_CHARS) {
      truncated = true;
      break;
    }
    groups.push(g);
    chars += g.length;
  }
  return { groups, truncated };
}

/** The Portico identity of a verified ID token (plus UserInfo claims); undefined when `sub` is unusable. */
export function identityFrom(provider: string, claims: Record<string, unknown>, groups: string[]): Identity | undefined {
  const sub = claims.sub;
  if (typeof sub !== 'string' || !sub || sub.length > MAX_SUB || CONTROL.test(sub)) return undefined;
  const email = text(claims.email);
  const displayName = text(claims.name) || text(claims.preferred_username) || email || sub;
  return { id: oidcActorId(provider, sub), email, displayName, groups, local: false };
}
