import { rbacSubject } from '@portico/api';
import type { JWTPayload } from 'jose';
import type { Actor, ProjectTokenScope } from '../actor.js';

/**
 * The JWT side of project tokens (§14). They are signed with the session key, so they are told apart by their
 * claims: `project` and `role` name the role the token acts as, `sub` is that role's subject, and `exp` is there
 * only when an expiry was asked for. Nothing else about the caller is in it: what the role permits is decided
 * per request from the project's current policies.
 */

/** What a project token is issued for. */
export interface ProjectTokenGrant extends ProjectTokenScope {
  /** The token's id (`jti`), the key of its record and of its revocation. */
  id: string;
  /** Unix seconds. */
  issuedAt: number;
  /** Unix seconds; absent, the token does not expire. */
  expiresAt?: number;
}

/** What an actor of a token without expiry gives as its expiry: the last instant a Date can hold. */
export const NEVER = new Date(8.64e15);

export const projectTokenClaims = (grant: ProjectTokenGrant): JWTPayload => ({ project: grant.project, role: grant.role });

export const isProjectTokenPayload = (p: JWTPayload) => p.project !== undefined || p.role !== undefined;

/**
 * The actor of a verified project token's claims, or undefined when they are not well formed (`sub` must be the
 * role subject the `project` and `role` claims name, so the two can never disagree).
 */
export function projectActorFromClaims(p: JWTPayload): Actor | undefined {
  const { sub, jti, iss, iat, exp, project, role } = p;
  if (typeof project !== 'string' || typeof role !== 'string' || !project || !role) return undefined;
  const subject = rbacSubject.role(project, role);
  if (sub !== subject || typeof jti !== 'string' || !jti || typeof iss !== 'string' || typeof iat !== 'number') return undefined;
  if (exp !== undefined && typeof exp !== 'number') return undefined;
  return {
    id: subject,
    subject,
    email: '',
    displayName: subject,
    groups: [],
    tokenId: jti,
    issuer: iss,
    issuedAt: new Date(iat * 1000),
    expiresAt: exp === undefined ? NEVER : new Date(exp * 1000),
    local: false,
    projectToken: { project, role },
  };
}
