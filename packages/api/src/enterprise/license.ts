import { z } from 'zod';

export const LicenseState = z.enum(['valid', 'grace_period', 'expired', 'missing', 'invalid']);
export type LicenseState = z.infer<typeof LicenseState>;

export const LicenseInfo = z.object({
  licenseId: z.string(),
  customer: z.string(),
  edition: z.string(),
  features: z.array(z.string()),
  maxUsers: z.number().int().describe('0 = unlimited'),
  issuedAt: z.string(),
  expiresAt: z.string(),
});

export const LicenseStatus = z.object({
  licensed: z.boolean(),
  enterprise: z.literal(true),
  status: LicenseState,
  message: z.string(),
  license: LicenseInfo.optional(),
  gracePeriodEnd: z.string().optional(),
  seats: z.object({ used: z.number().int(), max: z.number().int() }),
});
export type LicenseStatus = z.infer<typeof LicenseStatus>;

export const ApplyLicenseRequest = z.object({ token: z.string().min(1).max(16_384) });
export type ApplyLicenseRequest = z.infer<typeof ApplyLicenseRequest>;
