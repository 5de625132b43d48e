import { z } from 'zod';
import { DnsLabel, Timestamp } from './common.js';

/**
 * §14 project tokens: bearer tokens for CI pipelines and scripts that act as one role of one project
 * (`proj:<project>:<role>`), like Argo CD's project role tokens. The token itself is answered once, at creation.
 */

/** The longest lifetime a project token may be given: one year. */
export const MAX_PROJECT_TOKEN_SECONDS = 365 * 24 * 3600;

const unitSeconds = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** `"30d"` → seconds; undefined for anything that is not `<positive integer><s|m|h|d>`. */
export function tokenLifetimeSeconds(text: string): number | undefined {
  const match = /^([1-9][0-9]{0,8})([smhd])$/.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * unitSeconds[match[2] as keyof typeof unitSeconds];
}

export const TokenLifetime = z
  .string()
  .refine((text) => tokenLifetimeSeconds(text) !== undefined, 'must be a whole number followed by s, m, h or d, such as "30d"')
  .refine((text) => (tokenLifetimeSeconds(text) ?? 0) <= MAX_PROJECT_TOKEN_SECONDS, 'must be at most one year ("365d")')
  .meta({ description: 'How long the token is valid, such as "12h" or "30d" (at most "365d"); absent, it does not expire' });

export const ProjectRoleParams = z.object({ name: DnsLabel, role: DnsLabel });
export const ProjectTokenParams = z.object({
  name: DnsLabel,
  role: DnsLabel,
  id: z.string().regex(/^[0-9a-f-]{36}$/, 'must be a token id'),
});
export type ProjectTokenParams = z.infer<typeof ProjectTokenParams>;

export const CreateProjectTokenRequest = z.object({
  description: z.string().max(256).optional(),
  expiresIn: TokenLifetime.optional(),
});
export type CreateProjectTokenRequest = z.infer<typeof CreateProjectTokenRequest>;

/** The answer of a creation: the only time the token is shown. */
export const CreatedProjectToken = z.object({
  id: z.string(),
  token: z.string().meta({ description: 'The bearer token; shown once, never again' }),
  issuedAt: Timestamp,
  expiresAt: Timestamp.optional(),
});
export type CreatedProjectToken = z.infer<typeof CreatedProjectToken>;

export const ProjectTokenInfo = z.object({
  id: z.string(),
  description: z.string(),
  issuedAt: Timestamp,
  expiresAt: Timestamp.optional(),
  /** Updated lazily (at most about once a minute per replica). */
  lastUsedAt: Timestamp.optional(),
  createdBy: z.string(),
});
export type ProjectTokenInfo = z.infer<typeof ProjectTokenInfo>;

export const ProjectTokenList = z.object({ items: z.array(ProjectTokenInfo) });
export type ProjectTokenList = z.infer<typeof ProjectTokenList>;
