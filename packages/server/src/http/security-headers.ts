import type { ServerResponse } from 'node:http';

/** The API never serves documents that need anything beyond itself, and is never framed. */
const apiCsp = "default-src 'self'; frame-ancestors 'none'";

export const baseSecurityHeaders: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
  'Content-Security-Policy': apiCsp,
};

const hstsValue = 'max-age=31536000; includeSubDomains';

/** Set first on every response, so errors, 404s and the explorer all carry them. */
const baseHeaderList = Object.entries(baseSecurityHeaders);

export function applySecurityHeaders(res: ServerResponse, opts: { hsts: boolean }): void {
  for (const [name, value] of baseHeaderList) res.setHeader(name, value);
  if (opts.hsts) res.setHeader('Strict-Transport-Security', hstsValue);
}
