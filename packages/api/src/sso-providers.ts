import { z } from 'zod';
import { SsoProvider } from './auth.js';
import { DnsLabel } from './common.js';

/**
 * §11.6: sign-in providers a Server Admin manages at run time. Consoles send every field of their form, empty
 * ones as `""` (or `null`): an empty optional field is an absent one.
 */
const emptyIsAbsent = (v: unknown) => (v === '' || v === null ? undefined : v);
const noControl = (s: string) => !/[\u0000-\u001f\u007f]/.test(s);

/** Hosts whose traffic never leaves the machine: a provider there may speak plain http (development, tests). */
const isLoopback = (hostname: string) => hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);

const urlWith = (accept: (url: URL) => boolean, message: string) =>
  z
    .string()
    .max(2048)
    .refine((value) => {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        return false;
      }
      return !url.username && !url.password && !url.hash && accept(url);
    }, message);

/** Where codes and secrets go: https, or http to a loopback host only. */
const ProviderUrl = urlWith(
  (u) => u.protocol === 'https:' || (u.protocol === 'http:' && isLoopback(u.hostname)),
  'must be an https URL (http only for localhost) without credentials or fragment',
);

/** Portico's own callback as the provider knows it: behind a proxy it may be any http(s) address. */
const RedirectUrl = urlWith((u) => u.protocol === 'https:' || u.protocol === 'http:', 'must be an http(s) URL without credentials or fragment');

const Scope = z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,200}$/, 'must be one OAuth scope (printable, no spaces or quotes)');

export const SsoProviderName = DnsLabel;
export const SsoProviderParams = z.object({ name: SsoProviderName });
export type SsoProviderParams = z.infer<typeof SsoProviderParams>;

/** The methods a provider managed at run time may use (§11.6): a confidential client or a public one (PKCE). */
export const ManagedAuthMethod = z.enum(['client_secret_basic', 'none']);
export type ManagedAuthMethod = z.infer<typeof ManagedAuthMethod>;

const fields = {
  displayName: z.preprocess(emptyIsAbsent, z.string().min(1).max(100).refine(noControl, 'must not contain control characters').optional()),
  issuerURL: ProviderUrl,
  clientID: z.string().min(1).max(512).refine(noControl, 'must not contain control characters'),
  /** Write-only: never in an answer. */
  clientSecret: z.preprocess(emptyIsAbsent, z.string().max(4096).refine(noControl, 'must not contain control characters').optional()),
  redirectURL: RedirectUrl,
  /** Empty: `openid profile email groups`. `openid` is added when missing. */
  scopes: z.array(Scope).max(50).default([]),
  tokenEndpointAuthMethod: z.preprocess(emptyIsAbsent, ManagedAuthMethod.default('client_secret_basic')),
  authorizationURL: z.preprocess(emptyIsAbsent, ProviderUrl.optional()),
  tokenURL: z.preprocess(emptyIsAbsent, ProviderUrl.optional()),
  jwksURL: z.preprocess(emptyIsAbsent, ProviderUrl.optional()),
};

const ENDPOINTS = ['authorizationURL', 'tokenURL', 'jwksURL'] as const;

type Fields = { tokenEndpointAuthMethod: ManagedAuthMethod; clientSecret?: string } & Partial<Record<(typeof ENDPOINTS)[number], string>>;

/** The rules across fields: the three endpoints together or not at all; a secret only for a confidential client. */
function crossChecks(secretRequired: boolean) {
  return (p: Fields, ctx: z.RefinementCtx) => {
    const given = ENDPOINTS.filter((k) => p[k] !== undefined);
    if (given.length > 0 && given.length < ENDPOINTS.length) {
      for (const k of ENDPOINTS.filter((e) => p[e] === undefined)) {
        ctx.addIssue({ code: 'custom', path: [k], message: 'authorizationURL, tokenURL and jwksURL go together: give all three or none' });
      }
    }
    if (p.tokenEndpointAuthMethod === 'none' && p.clientSecret !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['clientSecret'], message: 'a public client (tokenEndpointAuthMethod none) has no secret' });
    }
    if (secretRequired && p.tokenEndpointAuthMethod === 'client_secret_basic' && p.clientSecret === undefined) {
      ctx.addIssue({ code: 'custom', path: ['clientSecret'], message: 'is required for client_secret_basic' });
    }
  };
}

export const CreateSsoProviderRequest = z.object({ name: SsoProviderName, ...fields }).superRefine(crossChecks(true));
export type CreateSsoProviderRequest = z.infer<typeof CreateSsoProviderRequest>;

/**
 * PUT replaces everything but the name (which, when sent, must be the path's). An empty or absent `clientSecret`
 * keeps the stored one; `none` removes it.
 */
export const UpdateSsoProviderRequest = z.object({ name: z.preprocess(emptyIsAbsent, SsoProviderName.optional()), ...fields }).superRefine(crossChecks(false));
export type UpdateSsoProviderRequest = z.infer<typeof UpdateSsoProviderRequest>;

/** One provider as its admin reads it: the public facts of the list, plus the endpoints when they are set by hand. */
export const SsoProviderDetail = SsoProvider.extend({
  authorizationURL: z.string().optional(),
  tokenURL: z.string().optional(),
  jwksURL: z.string().optional(),
});
export type SsoProviderDetail = z.infer<typeof SsoProviderDetail>;
