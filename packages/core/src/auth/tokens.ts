import { randomUUID, webcrypto } from 'node:crypto';
import { rbacSubject } from '@portico/api';
import { jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Actor } from '../actor.js';
import { unauthorized } from '../errors.js';
import type { KeyValue } from '../ports/keyvalue.js';
import type { AccountStore } from './account-store.js';
import { accountAccepts } from './revocations.js';
import { setBounded } from '../bounded-map.js';
import { isProjectTokenPayload, projectActorFromClaims, projectTokenClaims, type ProjectTokenGrant } from './project-token-jwt.js';

/** Who a token is for: a local account or (later) an identity-provider user. */
export interface Identity {
  id: string;
  email: string;
  displayName: string;
  groups: string[];
  local: boolean;
  /** A local account's identity generation (see LocalAccount.generation); absent for identity-provider users. */
  generation?: string;
}

export const TOKEN_AUDIENCE = 'portico';
/**
 * Clock skew tolerated between replicas (and the identity provider): on expiry, and on `iat`, which may be at
 * most this far in the future. A token claiming to be issued later than that was not issued by a clock we trust.
 */
export const CLOCK_TOLERANCE_SECONDS = 30;
/** The one message for every token failure: which check failed is nobody's business. */
export const INVALID_TOKEN = 'invalid or expired token';

const MAX_TOKEN_LENGTH = 8192;

const revokedKey = (jti: string) => `revoked:${jti}`;

export interface Tokens {
  /** `notBefore`: the account's tokensValidAfter; the token's iat is never earlier (see local-account.ts). */
  issue(identity: Identity, notBefore?: string): Promise<{ token: string; actor: Actor }>;
  /** Signature (HS256 only), issuer, audience, expiry, then revocation. Every failure: UNAUTHORIZED INVALID_TOKEN. */
  verify(token: string): Promise<Actor>;
  /** The checks after the signature: expiry, logout, local account still there and not cut off. */
  ensureStillValid(actor: Actor): Promise<void>;
  /** Logout: refuse this token from now until it would have expired anyway. */
  revoke(actor: Actor): Promise<void>;
  /** A project token (§14): signed like a session token, with the claims of project-token-jwt.ts. */
  issueProjectToken(grant: ProjectTokenGrant): Promise<string>;
  /**
   * Refuses a project token from now on, on every replica (the mark is in the shared store). Its record goes too
   * (the caller removes it); that is what keeps it refused once the mark has expired.
   */
  revokeProjectToken(id: string, expiresAt?: Date): Promise<void>;
}

/**
 * How long a revoked project token's mark is kept (at most; less when the token expires sooner). The mark only
 * bridges the moment until every replica's copy of the project shows the record gone, which is seconds.
 */
const PROJECT_TOKEN_MARK_MS = 24 * 3600 * 1000;

/**
 * Whether a project token's record and role are still there (§14): asked on every request of one, after the
 * revocation check. Without it, no project token is accepted.
 */
export type ProjectTokenCheck = (actor: Actor) => boolean | Promise<boolean>;

interface TokenOptions {
  key: Uint8Array;
  issuer: string;
  ttlSeconds: number;
  kv: KeyValue;
  accounts: Pick<AccountStore, 'cached' | 'recent'>;
  now: () => number;
  projectTokenValid?: ProjectTokenCheck;
}

const seconds = (ms: number) => Math.floor(ms / 1000);

/** How many verified tokens to remember; a client sends the same token on every request. */
const VERIFIED_CACHE_SIZE = 5000;

function actorFromClaims(p: JWTPayload, nowMs: number): Actor | undefined {
  // Issued later than a clock we trust could have: refused, whatever kind of token it is.
  if (typeof p.iat === 'number' && p.iat * 1000 > nowMs + CLOCK_TOLERANCE_SECONDS * 1000) return undefined;
  if (isProjectTokenPayload(p)) return projectActorFromClaims(p);
  const { sub, jti, iss, iat, exp } = p;
  if (typeof sub !== 'string' || !sub || typeof jti !== 'string' || !jti) return undefined;
  if (typeof iss !== 'string' || typeof iat !== 'number' || typeof exp !== 'number') return undefined;
  const groups = Array.isArray(p.groups) ? p.groups.filter((g): g is string => typeof g === 'string') : [];
  return {
    id: sub,
    subject: rbacSubject.user(sub),
    email: typeof p.email === 'string' ? p.email : '',
    displayName: typeof p.name === 'string' && p.name ? p.name : sub,
    groups,
    tokenId: jti,
    issuer: iss,
    issuedAt: new Date(iat * 1000),
    expiresAt: new Date(exp * 1000),
    local: p.local === true,
    generation: typeof p.gen === 'string' ? p.gen : undefined,
  };
}

export function createTokens(options: TokenOptions): Tokens {
  const { issuer, ttlSeconds, kv, accounts, now } = options;
  // Imported once: handed a raw Uint8Array, jose re-imports the key through WebCrypto on every call, which
  // was a quarter of the CPU of an authenticated request.
  const key = webcrypto.subtle.importKey('raw', options.key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  // A token's signature, issuer and audience never change once checked, so the claims of recently verified
  // token strings are remembered (bounded, oldest out first). Expiry, revocation and the account are still
  // checked on every request (stillValid). Every request of a token gets the same frozen actor, so what
  // authorization works out per actor (its subjects, its roles) is worked out once per token, not per request;
  // its revocation key is kept with it, so a request does not build (and hash) that string again.
  const verified = new Map<string, { actor: Actor; revoked: string }>();
  const remember = (token: string, actor: Actor) => void setBounded(verified, VERIFIED_CACHE_SIZE, token, { actor, revoked: revokedKey(actor.tokenId) });

  /** Expiry, revocation (under the key `revoked`) and the account, on every request; answers the actor. */
  const stillValid = async (actor: Actor, revoked: string): Promise<Actor> => {
    if (actor.expiresAt.getTime() + CLOCK_TOLERANCE_SECONDS * 1000 <= now()) throw unauthorized(INVALID_TOKEN);
    // KV errors (SERVICE_UNAVAILABLE) propagate: a token whose revocation cannot be checked does not pass.
    if ((await kv.get(revoked)) !== undefined) throw unauthorized(INVALID_TOKEN);
    if (actor.local) {
      // The copy may be up to a refresh old: what it refuses is asked again of a copy read after the token was
      // issued (its account existed by then, on whichever replica), so an account created a moment ago on
      // another replica works here at once, while an old token of a deleted account costs no re-read. What the
      // copy accepts stays accepted for at most a refresh; revocation notices close open sockets sooner.
      const issuedBy = actor.issuedAt.getTime() + 1000 + CLOCK_TOLERANCE_SECONDS * 1000;
      const accepted = accountAccepts(await accounts.cached(actor.id), actor) || accountAccepts(await accounts.recent(actor.id, issuedBy), actor);
      if (!accepted) throw unauthorized(INVALID_TOKEN);
    }
    // A project token's record (revoked elsewhere), role or project (deleted) may be gone: checked per request too.
    if (actor.projectToken && !(options.projectTokenValid && (await options.projectTokenValid(actor)))) throw unauthorized(INVALID_TOKEN);
    return actor;
  };
  const ensureStillValid = async (actor: Actor) => void (await stillValid(actor, revokedKey(actor.tokenId)));

  /** A token not seen (or forgotten) yet: signature, issuer, audience and claims, then the checks of every request. */
  const verifyAnew = async (token: string): Promise<Actor> => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, await key, {
        algorithms: ['HS256'],
        issuer,
        audience: TOKEN_AUDIENCE,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        currentDate: new Date(now()),
        // `exp` is required of session tokens below; a project token may have none (§14).
        requiredClaims: ['sub', 'jti', 'iat'],
      }));
    } catch {
      throw unauthorized(INVALID_TOKEN);
    }
    const actor = actorFromClaims(payload, now());
    if (!actor) throw unauthorized(INVALID_TOKEN);
    await ensureStillValid(actor);
    Object.freeze(actor.groups);
    remember(token, Object.freeze(actor));
    return actor;
  };

  return {
    async issue(identity, notBefore) {
      const iat = Math.max(seconds(now()), notBefore ? seconds(Date.parse(notBefore)) : 0);
      const exp = iat + ttlSeconds;
      const jti = randomUUID();
      const claims: JWTPayload = { email: identity.email, name: identity.displayName, groups: identity.groups };
      if (identity.local) claims.local = true;
      if (identity.generation) claims.gen = identity.generation;
      const token = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(identity.id)
        .setIssuer(issuer)
        .setAudience(TOKEN_AUDIENCE)
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .setJti(jti)
        .sign(await key);
      const actor: Actor = {
        id: identity.id,
        subject: rbacSubject.user(identity.id),
        email: identity.email,
        displayName: identity.displayName,
        groups: identity.groups,
        tokenId: jti,
        issuer,
        issuedAt: new Date(iat * 1000),
        expiresAt: new Date(exp * 1000),
        local: identity.local,
        generation: identity.generation,
      };
      return { token, actor };
    },

    // Not an async function: a token seen before is answered by the checks' own promise, with no other around it.
    verify(token) {
      if (typeof token !== 'string' || !token || token.length > MAX_TOKEN_LENGTH) return Promise.reject(unauthorized(INVALID_TOKEN));
      const known = verified.get(token);
      return known ? stillValid(known.actor, known.revoked) : verifyAnew(token);
    },

    ensureStillValid,

    async issueProjectToken(grant) {
      const jwt = new SignJWT(projectTokenClaims(grant))
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(rbacSubject.role(grant.project, grant.role))
        .setIssuer(issuer)
        .setAudience(TOKEN_AUDIENCE)
        .setIssuedAt(grant.issuedAt)
        .setJti(grant.id);
      if (grant.expiresAt !== undefined) jwt.setExpirationTime(grant.expiresAt);
      return jwt.sign(await key);
    },

    async revokeProjectToken(id, expiresAt) {
      const untilExpiry = expiresAt ? expiresAt.getTime() + CLOCK_TOLERANCE_SECONDS * 1000 - now() : Infinity;
      const ttlMs = Math.min(untilExpiry, PROJECT_TOKEN_MARK_MS);
      if (ttlMs > 0) await kv.set(revokedKey(id), '1', { ttlMs });
    },

    async revoke(actor) {
      if (!actor.tokenId) return; // in-process actors carry no token
      // Kept until the token would fail the expiry check anyway (tolerance included).
      const ttlMs = actor.expiresAt.getTime() + CLOCK_TOLERANCE_SECONDS * 1000 - now();
      if (ttlMs <= 0) return;
      await kv.set(revokedKey(actor.tokenId), '1', { ttlMs });
    },
  };
}
