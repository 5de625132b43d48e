import { z } from 'zod';
import { DnsLabel, DnsSubdomain } from './common.js';
import { SecretData, SecretSummary } from './secrets.js';

/**
 * The second path family of contract §11.3, the one consoles in the field call: `/secrets?project=` and
 * `/secrets/{secret}?project=&namespace=`. Same Secrets, same checks and the same item shape as the project
 * family (secrets.ts); only the paths, the paging and the answers of get, put and delete differ.
 */

/** `?project=`: the project whose Secrets a list or a create is about. */
export const SecretsProjectQuery = z.object({ project: DnsLabel });
export type SecretsProjectQuery = z.infer<typeof SecretsProjectQuery>;

/** A page is at most this long; a list without `limit` is one page of this many. */
export const secretPageLimit = 500;

export const SecretPageQuery = z.object({
  project: DnsLabel,
  limit: z
    .union([z.number(), z.string().regex(/^[0-9]{1,4}$/)], { error: 'must be a whole number in decimal digits' })
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(secretPageLimit, `must be at most ${secretPageLimit}`))
    .optional()
    .meta({ openapi: { type: 'integer', minimum: 1, maximum: secretPageLimit }, description: `items per page (default and at most ${secretPageLimit})` }),
  continue: z
    .string()
    .max(512)
    .regex(/^[A-Za-z0-9_-]+$/, 'must be the continue token of the previous page')
    .optional()
    .meta({ description: 'the `continue` of the previous page' }),
});
export type SecretPageQuery = z.infer<typeof SecretPageQuery>;

/** One page of a project's Secrets: `pageCount` items; `continue` (with `hasMore`) asks for the next page. */
export const SecretPage = z.object({
  items: z.array(SecretSummary),
  pageCount: z.number().int(),
  hasMore: z.boolean(),
  continue: z.string().optional(),
});
export type SecretPage = z.infer<typeof SecretPage>;

/** `/secrets/{secret}`. */
export const SecretNameParams = z.object({ secret: DnsSubdomain });
export type SecretNameParams = z.infer<typeof SecretNameParams>;

/** `?project=&namespace=`: where the Secret of the path is. */
export const SecretLocationQuery = z.object({ project: DnsLabel, namespace: DnsLabel });
export type SecretLocationQuery = z.infer<typeof SecretLocationQuery>;

/** A Secret with its values: family 2's GET always answers them (so it needs the `reveal` action). */
export const SecretWithData = SecretSummary.extend({ data: z.record(z.string(), z.string()) });
export type SecretWithData = z.infer<typeof SecretWithData>;

/** PUT `/secrets/{secret}?project=`: sets the keys it sends and keeps the others. */
export const UpsertSecretKeysRequest = z.object({ namespace: DnsLabel, data: SecretData });
export type UpsertSecretKeysRequest = z.infer<typeof UpsertSecretKeysRequest>;

/** DELETE `/secrets/{secret}`: `warnings` name the project's instances whose values mention the Secret. */
export const SecretDeleted = z.object({ deleted: z.literal(true), warnings: z.array(z.string()) });
export type SecretDeleted = z.infer<typeof SecretDeleted>;
