import { z } from 'zod';

const label = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';

/** DNS-1123 label: project, namespace and role names. */
export const DnsLabel = z
  .string()
  .max(63, 'must be at most 63 characters')
  .regex(new RegExp(`^${label}$`), 'must be a DNS-1123 label (lower-case letters, digits and "-", starting and ending alphanumeric)');

/** DNS-1123 subdomain: RGD and instance names. */
export const DnsSubdomain = z
  .string()
  .max(253, 'must be at most 253 characters')
  .regex(new RegExp(`^${label}(\\.${label})*$`), 'must be a DNS-1123 subdomain (lower-case letters, digits, "-" and ".")');

/** A kind as kro and Kubernetes spell it. */
export const KindName = z.string().regex(/^[A-Z][A-Za-z0-9]{0,62}$/, 'must match ^[A-Z][A-Za-z0-9]{0,62}$');

/** A user or group as a binding subject: identity-provider ids, e-mails, local usernames. No slashes, no control characters. */
export const SubjectName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@+:=-]*$/, 'must start alphanumeric and contain only letters, digits and . _ @ + : = -');

/** A destination namespace: a name, or a pattern `*`, `prefix*`, `*suffix`. */
export const NamespacePattern = z
  .string()
  .max(63)
  .regex(/^(\*|[a-z0-9][-a-z0-9]*\*|\*[-a-z0-9]*[a-z0-9]|[a-z0-9]([-a-z0-9]*[a-z0-9])?)$/, 'must be a namespace name or a pattern "*", "prefix*" or "*suffix"');

export const Timestamp = z.string().describe('RFC 3339 UTC timestamp');

export const Labels = z.record(z.string(), z.string());

export const SortOrder = z.enum(['asc', 'desc']);

/**
 * A whole number from a query string: decimal digits only. `z.coerce.number()` alone would read `0x10`, `1e1`,
 * ` 5 ` or `0b11` as numbers, which no client means; in-process callers may still pass a number. The OpenAPI
 * document shows it as the integer it is (`meta.openapi`, applied by the server's generator).
 */
const queryWholeNumber = (fallback: number, min: number, max?: number) => {
  let target = z.number().int('must be a whole number').min(min, `must be at least ${min}`);
  if (max !== undefined) target = target.max(max, `must be at most ${max}`);
  return z
    .union([z.number(), z.string().regex(/^[0-9]{1,15}$/)], { error: 'must be a whole number in decimal digits' })
    .transform(Number)
    .pipe(target)
    .default(fallback)
    .meta({ openapi: { default: fallback, type: 'integer', minimum: min, ...(max === undefined ? {} : { maximum: max }) } });
};

/** Paging of §1: page is 1-based, pageSize defaults to 20, at most 500. */
export const PageQuery = {
  page: queryWholeNumber(1, 1),
  pageSize: queryWholeNumber(20, 1, 500),
  sortOrder: SortOrder.default('asc'),
};

export const listOf = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    totalCount: z.number().int(),
    page: z.number().int(),
    pageSize: z.number().int(),
  });

export const CountResponse = z.object({ count: z.number().int() });
export type CountResponse = z.infer<typeof CountResponse>;

export const MessageResponse = z.object({ message: z.string() });
export type MessageResponse = z.infer<typeof MessageResponse>;

export const Condition = z.object({
  type: z.string(),
  status: z.string(),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastTransitionTime: z.string().optional(),
  observedGeneration: z.number().int().optional(),
});
export type Condition = z.infer<typeof Condition>;

export const DeploymentMode = z.enum(['direct', 'gitops', 'hybrid']);
export type DeploymentMode = z.infer<typeof DeploymentMode>;
