import { z } from 'zod';

/** The only edition this build licenses: a token signed for another product or edition unlocks nothing. */
export const LICENSED_EDITION = 'enterprise';

/** How much of a license's free text (the customer) is kept. */
const MAX_TEXT = 200;

/**
 * Free text from a license (the customer, `sub`) as Portico shows it: in the status answer, its message and the
 * logs. Signed is not the same as safe to echo: line breaks (a forged log line), other control and invisible
 * characters become spaces, markup (`<script>…</script>`, any `<…>`) is dropped, spaces are collapsed, and at most
 * 200 characters are kept.
 */
export function cleanLicenseText(text: string): string {
  const cleaned = text
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/[<>]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return [...cleaned].slice(0, MAX_TEXT).join('');
}

const licenseText = z.string().min(1).transform(cleanLicenseText).pipe(z.string().min(1, 'nothing is left of it once cleaned'));

/**
 * The claims of a license JWT. Unknown features are kept (a newer license on an older build must still
 * verify) but grant nothing here. The customer and license id are cleaned for display (cleanLicenseText).
 */
export const LicenseClaims = z.object({
  sub: licenseText,
  lid: licenseText,
  edition: z.string().min(1),
  features: z.array(z.string()).default([]),
  maxUsers: z.number().int().min(0).default(0),
  iat: z.number().int(),
  nbf: z.number().int().optional(),
  exp: z.number().int(),
});
export type LicenseClaims = z.infer<typeof LicenseClaims>;
