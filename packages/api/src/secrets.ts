import { z } from 'zod';
import { DnsLabel, DnsSubdomain, Labels, Timestamp } from './common.js';

/** A key of a Secret's data, as Kubernetes allows it. */
const SecretKey = z.string().regex(/^[-._a-zA-Z0-9]{1,253}$/, 'must consist of letters, digits, "-", "_" or "."');

const KiB = 1024;
const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;

/** One value: at most 256 KiB (UTF-8), as contract §11.3 bounds it. */
const SecretValue = z.string().refine((v) => utf8Bytes(v) <= 256 * KiB, 'must be at most 256 KiB');

/**
 * Values are plain strings on the wire; Portico base64-encodes them into the Secret's `data`. At least one key,
 * each value at most 256 KiB, all of them together at most 512 KiB; a bad key or value is named in
 * `details.fields` (`data.<key>`).
 */
export const SecretData = z
  .record(SecretKey, SecretValue)
  .refine((d) => Object.keys(d).length > 0, 'must hold at least one key')
  .refine((d) => Object.values(d).reduce((sum, v) => sum + utf8Bytes(v), 0) <= 512 * KiB, 'all values together must be at most 512 KiB');

/** A project's Secret as listed: metadata and key names, never the values. */
export const SecretSummary = z.object({
  name: z.string(),
  namespace: z.string(),
  type: z.string(),
  keys: z.array(z.string()),
  createdAt: Timestamp,
  createdBy: z.string(),
  updatedAt: Timestamp,
  /** The Secret's labels as stored (`portico.dev/project` among them); `{}` when it has none. */
  labels: Labels,
  resourceVersion: z.string(),
});
export type SecretSummary = z.infer<typeof SecretSummary>;

/** One Secret; `data` only when asked with `reveal=true` by a caller holding the `reveal` action. */
export const SecretDetail = SecretSummary.extend({ data: z.record(z.string(), z.string()).optional() });
export type SecretDetail = z.infer<typeof SecretDetail>;

export const SecretList = z.object({ items: z.array(SecretSummary), totalCount: z.number().int() });
export type SecretList = z.infer<typeof SecretList>;

export const CreateSecretRequest = z.object({
  name: DnsSubdomain,
  namespace: DnsLabel,
  type: z.string().regex(/^[-._a-zA-Z0-9/]{1,253}$/).default('Opaque'),
  data: SecretData,
});
export type CreateSecretRequest = z.input<typeof CreateSecretRequest>;

export const UpdateSecretRequest = z.object({
  data: SecretData,
  resourceVersion: z.string().min(1, 'the current resourceVersion is required'),
});
export type UpdateSecretRequest = z.infer<typeof UpdateSecretRequest>;

export const SecretParams = z.object({ name: DnsLabel, namespace: DnsLabel, secret: DnsSubdomain });
export type SecretParams = z.infer<typeof SecretParams>;

export const SecretQuery = z.object({
  reveal: z.enum(['true', 'false']).optional().meta({ description: 'true: include the values (needs the reveal action)' }),
});
export type SecretQuery = z.infer<typeof SecretQuery>;
