import { z } from 'zod';
import type { RateLimitBucket } from '@portico/api';
import { PorticoError } from '../errors.js';

/** The per-IP buckets of contract §9 plus `user`: every other authenticated endpoint, keyed by the caller. */
export type LimitName = RateLimitBucket | 'user';

/** `limit` requests per `windowSeconds`; a limit of 0 means unlimited. */
export interface RateLimitRule {
  limit: number;
  windowSeconds: number;
}

/**
 * Every rate limit plus two lockouts: `loginFailures` (failed local sign-ins per IP and per username) and
 * `wsUpgradeFailures` (refused WebSocket upgrades per IP: bad tickets, foreign origins).
 */
export type RateLimitRules = Record<LimitName | 'loginFailures' | 'wsUpgradeFailures', RateLimitRule>;

export const limitNames = ['login', 'oidcLogin', 'oidcCallback', 'ssoProviders', 'namespaces', 'user'] as const satisfies readonly LimitName[];

/** Contract §9, a lockout after 10 failed sign-ins within 15 minutes, and one after 30 refused upgrades a minute. */
export const defaultRateLimits: Readonly<RateLimitRules> = Object.freeze({
  login: { limit: 5, windowSeconds: 60 },
  oidcLogin: { limit: 20, windowSeconds: 60 },
  oidcCallback: { limit: 5, windowSeconds: 60 },
  ssoProviders: { limit: 30, windowSeconds: 60 },
  namespaces: { limit: 20, windowSeconds: 60 },
  user: { limit: 100, windowSeconds: 60 },
  loginFailures: { limit: 10, windowSeconds: 900 },
  wsUpgradeFailures: { limit: 30, windowSeconds: 60 },
});

const VARIABLE = 'PORTICO_RATE_LIMITS';

const Rule = z.union([
  z.number().int().min(0),
  z
    .object({
      limit: z.number().int().min(0).optional(),
      windowSeconds: z.number().int().min(1).max(86_400).optional(),
    })
    .strict(),
]);

const Overrides = z.partialRecord(z.enum([...limitNames, 'loginFailures', 'wsUpgradeFailures']), Rule);

const invalid = (message: string) =>
  new PorticoError('BAD_REQUEST', `invalid configuration: ${VARIABLE}: ${message}`, { variable: VARIABLE });

/**
 * `PORTICO_RATE_LIMITS`: `0` turns every limit (lockout included) off; otherwise a JSON object overriding
 * some rules, each as `{limit, windowSeconds}` (either may be left out) or a bare number for the limit, e.g.
 * `{"login":{"limit":5,"windowSeconds":60},"user":0}`. Anything else stops start-up naming the variable.
 */
export function parseRateLimits(text: string | undefined): RateLimitRules {
  const rules = structuredClone(defaultRateLimits) as RateLimitRules;
  if (text === undefined || text.trim() === '') return rules;
  if (text.trim() === '0') {
    for (const rule of Object.values(rules)) rule.limit = 0;
    return rules;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw invalid('must be 0 or a JSON object');
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw invalid('must be 0 or a JSON object');
  const parsed = Overrides.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
    throw invalid(`${where}${issue.code === 'unrecognized_keys' ? `unknown key(s) ${issue.keys.join(', ')}` : issue.message}`);
  }
  for (const [name, rule] of Object.entries(parsed.data) as [keyof RateLimitRules, z.infer<typeof Rule>][]) {
    if (typeof rule === 'number') rules[name].limit = rule;
    else rules[name] = { limit: rule.limit ?? rules[name].limit, windowSeconds: rule.windowSeconds ?? rules[name].windowSeconds };
  }
  return rules;
}
