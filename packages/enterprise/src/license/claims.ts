import { z } from 'zod';

/**
 * The claims of a license JWT. Unknown features are kept (a newer license on an older build must still
 * verify) but grant nothing here.
 */
export const LicenseClaims = z.object({
  sub: z.string().min(1),
  lid: z.string().min(1),
  edition: z.string().min(1),
  features: z.array(z.string()).default([]),
  maxUsers: z.number().int().min(0).default(0),
  iat: z.number().int(),
  nbf: z.number().int().optional(),
  exp: z.number().int(),
});
export type LicenseClaims = z.infer<typeof LicenseClaims>;
