import { z } from 'zod';
import { DnsSubdomain } from './common.js';

/** §11.5 `GET /settings`: what a console shows about this installation. */
export const Settings = z.object({
  /** From `PORTICO_ORGANIZATION` (default `default`). */
  organization: z.string(),
});
export type Settings = z.infer<typeof Settings>;

/** Kept per list: the newest first, duplicates dropped, entries past the limit dropped. */
export const preferenceLimits = { favoriteRgds: 10, recentRgds: 20 } as const;

/** §11.5 `GET /users/preferences` and the answer of PUT: RGD names, newest first. */
export const UserPreferences = z.object({
  favoriteRgds: z.array(z.string()),
  recentRgds: z.array(z.string()),
});
export type UserPreferences = z.infer<typeof UserPreferences>;

/**
 * The body of `PUT /users/preferences`. A list left out keeps what is stored. Every name must be a DNS-1123
 * subdomain (an RGD name); how many are sent is bounded only by the body limit, since the extra ones are dropped.
 */
export const UpdatePreferencesRequest = z.object({
  favoriteRgds: z.array(DnsSubdomain).optional(),
  recentRgds: z.array(DnsSubdomain).optional(),
});
export type UpdatePreferencesRequest = z.infer<typeof UpdatePreferencesRequest>;

/** An icon's slug: lower-case letters, digits, `-` and `:` (`cat:<category>` names a category icon). */
export const IconSlug = z.string().max(253).regex(/^[a-z0-9:-]+$/, 'must match [a-z0-9:-]+');
export const IconParams = z.object({ slug: IconSlug });

/** §11.7 `GET /kubernetes/api-resources`. */
export const ApiResourcesQuery = z.object({
  /** A case-insensitive substring of the kind. */
  search: z.string().max(253).optional(),
  /** A group name; `core` is the core group. */
  apiGroup: z.string().max(253).optional(),
});
export type ApiResourcesQuery = z.infer<typeof ApiResourcesQuery>;

export const ApiResource = z.object({
  /** `""` for the core group. */
  apiGroup: z.string(),
  kind: z.string(),
});
export type ApiResource = z.infer<typeof ApiResource>;

/** One entry per group and kind the cluster serves (subresources left out): core first, then by group and kind. */
export const ApiResourceList = z.object({
  resources: z.array(ApiResource),
  count: z.number().int(),
});
export type ApiResourceList = z.infer<typeof ApiResourceList>;
