import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('../../../../examples/enterprise/issue-license.mjs', import.meta.url));

/** The throwaway example key's public half: pass as PORTICO_LICENSE_KEYS so example-signed licenses verify. */
export const exampleKeysFile = fileURLToPath(new URL('../../../../examples/enterprise/throwaway-public.jwks.json', import.meta.url));

export interface LicenseOptions {
  customer?: string;
  features?: string[];
  maxUsers?: number;
  /** `+365d`, `-8d`, or RFC 3339. */
  expires?: string;
  notBefore?: string;
  /** The `edition` claim (default `enterprise`). */
  edition?: string;
}

/** A license signed the way the docs tell people to: by running examples/enterprise/issue-license.mjs. */
export function issueLicense(opts: LicenseOptions = {}): string {
  const args = [script, `--features=${(opts.features ?? ['audit', 'compliance', 'categories', 'views', 'secrets']).join(',')}`, `--expires=${opts.expires ?? '+365d'}`];
  if (opts.customer) args.push(`--customer=${opts.customer}`);
  if (opts.maxUsers !== undefined) args.push(`--max-users=${opts.maxUsers}`);
  if (opts.notBefore) args.push(`--not-before=${opts.notBefore}`);
  if (opts.edition !== undefined) args.push(`--edition=${opts.edition}`);
  return execFileSync(process.execPath, args, { encoding: 'utf8' }).trim();
}
