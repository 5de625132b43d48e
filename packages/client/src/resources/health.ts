import type { Readyz } from '@portico/api';
import type { CallOptions } from '../options.js';
import type { Transport } from '../transport.js';

export interface HealthApi {
  /** `GET /healthz`: resolves when the server is alive. */
  live(opts?: CallOptions): Promise<{ status: 'ok' }>;
  /** `GET /readyz`: rejects with 503 SERVICE_UNAVAILABLE while a dependency is down. */
  ready(opts?: CallOptions): Promise<Readyz>;
}

export const healthApi = (call: Transport): HealthApi => ({
  live: (opts) => call<{ status: 'ok' }>('healthz', {}, opts),
  ready: (opts) => call<Readyz>('readyz', {}, opts),
});
