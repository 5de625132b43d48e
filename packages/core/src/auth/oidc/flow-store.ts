import { createHash, randomBytes } from 'node:crypto';
import type { KeyValue } from '../../ports/keyvalue.js';
import type { Identity } from '../tokens.js';

/** `state`, `nonce`, PKCE verifiers and one-time codes: 32 random bytes, base64url (43 characters). */
export const randomToken = () => randomBytes(32).toString('base64url');
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** RFC 7636 S256: BASE64URL(SHA256(verifier)). */
export const pkceChallenge = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

const STATE_TTL_MS = 5 * 60 * 1000;
const CODE_TTL_MS = 30 * 1000;

/** What a sign-in in progress remembers between the redirect to the provider and the callback. */
export interface PendingSignIn {
  provider: string;
  /** The ConfigMap uid of a provider managed at run time (absent for one of the environment). */
  providerUid?: string;
  verifier: string;
  nonce: string;
  /** Validated at login; the only place the callback sends the browser to. */
  redirect: string;
  expiresAt: number;
}

/** Which provider a sign-in went through: a code is redeemed only while that same provider is there. */
export type SignInOrigin = Pick<PendingSignIn, 'provider' | 'providerUid'>;

interface IssuedCode extends Partial<SignInOrigin> {
  identity: Identity;
  expiresAt: number;
}

const stateKey = (state: string) => `oidc:state:${state}`;
const codeKey = (code: string) => `oidc:code:${code}`;

const parse = <T>(raw: string | undefined): T | undefined => {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return undefined;
  }
};

/**
 * The single-use records of the code flow, in the shared store so any replica can finish a sign-in another
 * one started. Every read is a `getdel`: the first use consumes the record on every replica. Store errors
 * propagate (503): a flow whose state cannot be checked does not go on.
 */
export function createFlowStore(kv: KeyValue, now: () => number) {
  return {
    async savePending(pending: Omit<PendingSignIn, 'expiresAt'>): Promise<string> {
      const state = randomToken();
      const record: PendingSignIn = { ...pending, expiresAt: now() + STATE_TTL_MS };
      await kv.set(stateKey(state), JSON.stringify(record), { ttlMs: STATE_TTL_MS, ifAbsent: true });
      return state;
    },

    /** The pending sign-in for `state`, consumed; undefined when unknown, used or expired. */
    async takePending(state: string): Promise<PendingSignIn | undefined> {
      if (!TOKEN_SHAPE.test(state)) return undefined;
      const record = parse<PendingSignIn>(await kv.getdel(stateKey(state)));
      return record && record.expiresAt > now() ? record : undefined;
    },

    async issueCode(identity: Identity, origin: SignInOrigin): Promise<string> {
      const code = randomToken();
      const record: IssuedCode = { identity, ...origin, expiresAt: now() + CODE_TTL_MS };
      await kv.set(codeKey(code), JSON.stringify(record), { ttlMs: CODE_TTL_MS, ifAbsent: true });
      return code;
    },

    /** The identity a one-time code stands for and where it signed in, consumed; undefined when unknown, used or expired. */
    async redeemCode(code: string): Promise<{ identity: Identity; origin: Partial<SignInOrigin> } | undefined> {
      if (typeof code !== 'string' || !TOKEN_SHAPE.test(code)) return undefined;
      const record = parse<IssuedCode>(await kv.getdel(codeKey(code)));
      return record && record.expiresAt > now() ? { identity: record.identity, origin: { provider: record.provider, providerUid: record.providerUid } } : undefined;
    },
  };
}
