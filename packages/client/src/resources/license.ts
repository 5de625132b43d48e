import type { LicenseStatus } from '@portico/api/enterprise';
import type { CallOptions } from '../options.js';
import type { Transport } from '../transport.js';

/** §12.1 license (Enterprise). */
export interface LicenseApi {
  /** `GET /api/v1/license`: status, features, seats (any signed-in user). */
  show(opts?: CallOptions): Promise<LicenseStatus>;
  /** `POST /api/v1/license`: installs a license token (Server Admin); every replica applies it within seconds. */
  apply(token: string, opts?: CallOptions): Promise<LicenseStatus>;
}

export const licenseApi = (call: Transport): LicenseApi => ({
  show: (opts) => call('getLicense', {}, opts),
  apply: (token, opts) => call('applyLicense', { body: { token } }, opts),
});
