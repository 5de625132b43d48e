import type { PreflightResponse } from '@portico/api';
import type { CallOptions } from '../options.js';
import type { Transport } from '../transport.js';
import type { CreateFlatInstanceInput, CreateInstanceInput } from './instances.js';

/**
 * A create to check, as `instances.create` takes it by kind (a namespace for namespaced kinds, none for
 * cluster-scoped ones), the name optional; `rgdName` names the RGD as the flat form does.
 */
export type PreflightInput = Omit<CreateInstanceInput, 'name'> & Partial<Pick<CreateFlatInstanceInput, 'name' | 'rgdName'>>;

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
