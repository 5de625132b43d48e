import type { Readyz, ServerVersion } from '@portico/api';
import type { CallOptions } from '../options.js';
import type { Transport } from '../transport.js';

export interface HealthApi {
  /** `GET /healthz`: resolves when the server is alive. */
  live(opts?: CallOptions): Promise<{ status: 'ok' }>;
  /** `GET /readyz`: rejects with 503 SERVICE_UNAVAILABLE while a dependency is down. */
  ready(opts?: CallOptions): Promise<Readyz>;
  /** `GET /api/v1/version`: the server's release (needs a token). */
  version(opts?: CallOptions): Promise<ServerVersion>;
}

export const healthApi = (call: Transport): HealthApi => ({
  live: (opts) => call('healthz', {}, opts),
  ready: (opts) => call('readyz', {}, opts),
  version: (opts) => call('serverVersion', {}, opts),
});
