import type { CountResponse, DeploymentMode, Health, Instance, InstanceList, InstanceSortBy } from '@portico/api';
import type { z } from 'zod';
import type { CallOptions } from '../options.js';
import { paginate } from '../paginate.js';
import type { Transport } from '../transport.js';

/** An instance: a namespace for namespaced kinds, none (or "") for cluster-scoped ones. */
export interface InstanceRef {
  kind: string;
  name: string;
  namespace?: string;
}

/** Form A: by kind; the namespace picks the namespaced or the cluster-scoped (`_`) path. */
export interface CreateInstanceInput extends InstanceRef {
  project: string;
  values?: Record<string, unknown>;
  deploymentMode?: DeploymentMode;
}

/** Form B: by RGD name, one flat body. */
export interface CreateFlatInstanceInput {
  rgdName: string;
  name: string;
  project: string;
  namespace?: string;
  values?: Record<string, unknown>;
  deploymentMode?: DeploymentMode;
}

export interface InstanceFilter {
  project?: string;
  namespace?: string;
  rgdName?: string;
  kind?: string;
  health?: Health;
  search?: string;
  page?: number;
  pageSize?: number;
  sortBy?: z.infer<typeof InstanceSortBy>;
  sortOrder?: 'asc' | 'desc';
}

export interface InstancesApi {
  /** Form A (`{kind, …}`) or, given `rgdName`, Form B. */
  create(input: CreateInstanceInput | CreateFlatInstanceInput, opts?: CallOptions): Promise<Instance>;
  /** `POST /api/v1/instances` (Form B). */
  createFlat(input: CreateFlatInstanceInput, opts?: CallOptions): Promise<Instance>;
  /** `GET /api/v1/instances`: one page. */
  list(filter?: InstanceFilter, opts?: CallOptions): Promise<InstanceList>;
  count(opts?: CallOptions): Promise<number>;
  get(ref: InstanceRef, opts?: CallOptions): Promise<Instance>;
  /** Merge-patch of `spec`; pass the `resourceVersion` read last to get 409 on a concurrent change. */
  patch(ref: InstanceRef, spec: Record<string, unknown>, opts?: CallOptions & { resourceVersion?: string }): Promise<Instance>;
  delete(ref: InstanceRef, opts?: CallOptions): Promise<Instance>;
  /** Every matching instance, page after page (`pageSize` defaults to 100 here). */
  all(filter?: InstanceFilter, opts?: CallOptions): AsyncGenerator<Instance, void, undefined>;
}

const isClusterScoped = (ref: { namespace?: string }) => ref.namespace === undefined || ref.namespace === '';

export const instancesApi = (call: Transport): InstancesApi => {
  const createFlat: InstancesApi['createFlat'] = (input, opts) =>
    call<Instance>(
      'createInstance',
      {
        body: {
          name: input.name,
          namespace: input.namespace || undefined,
          rgdName: input.rgdName,
          projectId: input.project,
          spec: input.values ?? {},
          deploymentMode: input.deploymentMode,
        },
      },
      opts,
    );
  const list = (filter: InstanceFilter = {}, opts?: CallOptions) => call<InstanceList>('listInstances', { query: { ...filter } }, opts);

  return {
    create: (input, opts) => {
      if ('rgdName' in input) return createFlat(input, opts);
      const body = { name: input.name, project: input.project, values: input.values ?? {}, deploymentMode: input.deploymentMode };
      return isClusterScoped(input)
        ? call<Instance>('createClusterInstance', { params: { kind: input.kind }, body }, opts)
        : call<Instance>('createNamespacedInstance', { params: { namespace: input.namespace!, kind: input.kind }, body }, opts);
    },
    createFlat,
    list,
    count: async (opts) => (await call<CountResponse>('countInstances', {}, opts)).count,
    get: (ref, opts) =>
      isClusterScoped(ref)
        ? call<Instance>('getClusterInstance', { params: { kind: ref.kind, name: ref.name } }, opts)
        : call<Instance>('getNamespacedInstance', { params: { namespace: ref.namespace!, kind: ref.kind, name: ref.name } }, opts),
    patch: (ref, spec, opts = {}) => {
      const body = { spec, resourceVersion: opts.resourceVersion };
      return isClusterScoped(ref)
        ? call<Instance>('patchClusterInstance', { params: { kind: ref.kind, name: ref.name }, body }, opts)
        : call<Instance>('patchNamespacedInstance', { params: { namespace: ref.namespace!, kind: ref.kind, name: ref.name }, body }, opts);
    },
    delete: (ref, opts) =>
      isClusterScoped(ref)
        ? call<Instance>('deleteClusterInstance', { params: { kind: ref.kind, name: ref.name } }, opts)
        : call<Instance>('deleteNamespacedInstance', { params: { namespace: ref.namespace!, kind: ref.kind, name: ref.name } }, opts),
    all: (filter = {}, opts) => paginate((page, pageSize, o) => list({ ...filter, page, pageSize }, o), filter, opts),
  };
};
