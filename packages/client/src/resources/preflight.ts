import type { PreflightResponse } from '@portico/api';
import type { CallOptions } from '../options.js';
import type { Transport } from '../transport.js';

/**
 * A create to check: the kind (the path), a namespace for namespaced kinds (none for cluster-scoped ones), and the
 * body of a create, the name optional. `rgdName` names the RGD as Form B does (it must have `kind`).
 */
export interface PreflightInput {
  kind: string;
  namespace?: string;
  name?: string;
  project: string;
  values?: Record<string, unknown>;
  deploymentMode?: string;
  rgdName?: string;
}

export interface PreflightApi {
  /**
   * `POST …/instances/{kind}/preflight`: runs every check of a create in its order and writes nothing. Resolves
   * with `valid: false` and the first failing check's message for what a create would refuse; it rejects only
   * for a request that cannot be asked at all (no token, a malformed kind or namespace).
   */
  preflight(input: PreflightInput, opts?: CallOptions): Promise<PreflightResponse>;
}

export const preflightApi = (call: Transport): PreflightApi => ({
  preflight: ({ kind, namespace, ...body }, opts) =>
    namespace
      ? call('namespacedInstancePreflight', { params: { namespace, kind }, body }, opts)
      : call('clusterInstancePreflight', { params: { kind }, body }, opts),
});
