import type { CountResponse, Instance, InstanceList, RouteBodyInput, RouteParamsInput, RouteQuery } from '@portico/api';
import type { CallOptions } from '../options.js';
import { paginate } from '../paginate.js';
import type { Transport } from '../transport.js';

/** An instance: the path parameters of its routes; a namespace for namespaced kinds, none (or "") for cluster-scoped ones. */
export type InstanceRef = Omit<RouteParamsInput<'getNamespacedInstance'>, 'namespace'> & { namespace?: string };

/** Create by kind (path) and body: the namespace picks the namespaced path, none the cluster-scoped (`_`) one. */
export type CreateInstanceInput = Omit<RouteParamsInput<'createNamespacedInstance'>, 'namespace'> & { namespace?: string } & RouteBodyInput<'createNamespacedInstance'>;

/** Create by RGD name: one flat body (the route's body schema as a caller writes it), the kind follows from the RGD. */
export type CreateFlatInstanceInput = RouteBodyInput<'createInstance'>;

/** The list query as parsed values (numbers for pages); anything left out takes the route's default. */
export type InstanceFilter = Partial<RouteQuery<'listInstances'>>;

export interface InstancesApi {
  /** By kind (`{kind, …}`: `createNamespaced` or `createClusterScoped`, as `namespace` says) or, given `rgdName`, `createFlat`. */
  create(input: CreateInstanceInput | CreateFlatInstanceInput, opts?: CallOptions): Promise<Instance>;
  /** `POST /api/v1/namespaces/{namespace}/instances/{kind}`: an instance of a namespaced kind. */
  createNamespaced(input: CreateInstanceInput & { namespace: string }, opts?: CallOptions): Promise<Instance>;
  /** `POST /api/v1/instances/_/{kind}`: an instance of a cluster-scoped kind. */
  createClusterScoped(input: Omit<CreateInstanceInput, 'namespace'>, opts?: CallOptions): Promise<Instance>;
  /** `POST /api/v1/instances`: by RGD name with one flat body. */
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

/** §13: the repository of a Git-mode create and where in it, only those given. */
const gitFieldsOf = (input: { repositoryId?: string; gitBranch?: string; gitPath?: string }) => ({
  ...(input.repositoryId !== undefined && { repositoryId: input.repositoryId }),
  ...(input.gitBranch !== undefined && { gitBranch: input.gitBranch }),
  ...(input.gitPath !== undefined && { gitPath: input.gitPath }),
});

export const instancesApi = (call: Transport): InstancesApi => {
  const createFlat: InstancesApi['createFlat'] = (input, opts) =>
    call(
      'createInstance',
      {
        body: {
          name: input.name,
          namespace: input.namespace || undefined,
          rgdName: input.rgdName,
          projectId: input.project,
          spec: input.values ?? {},
          deploymentMode: input.deploymentMode,
          ...gitFieldsOf(input),
        },
      },
      opts,
    );
  const list = (filter: InstanceFilter = {}, opts?: CallOptions) => call('listInstances', { query: { ...filter } }, opts);
  const byKindBody = (input: Omit<CreateInstanceInput, 'kind' | 'namespace'>) => ({
    name: input.name,
    project: input.project,
    values: input.values ?? {},
    deploymentMode: input.deploymentMode,
    ...gitFieldsOf(input),
  });
  const createNamespaced: InstancesApi['createNamespaced'] = (input, opts) =>
    call('createNamespacedInstance', { params: { namespace: input.namespace, kind: input.kind }, body: byKindBody(input) }, opts);
  const createClusterScoped: InstancesApi['createClusterScoped'] = (input, opts) =>
    call('createClusterInstance', { params: { kind: input.kind }, body: byKindBody(input) }, opts);

  return {
    create: (input, opts) => {
      if ('rgdName' in input) return createFlat(input, opts);
      return isClusterScoped(input) ? createClusterScoped(input, opts) : createNamespaced({ ...input, namespace: input.namespace! }, opts);
    },
    createNamespaced,
    createClusterScoped,
    createFlat,
    list,
    count: async (opts) => (await call('countInstances', {}, opts)).count,
    get: (ref, opts) =>
      isClusterScoped(ref)
        ? call('getClusterInstance', { params: { kind: ref.kind, name: ref.name } }, opts)
        : call('getNamespacedInstance', { params: { namespace: ref.namespace!, kind: ref.kind, name: ref.name } }, opts),
    patch: (ref, spec, opts = {}) => {
      const body = { spec, resourceVersion: opts.resourceVersion };
      return isClusterScoped(ref)
        ? call('patchClusterInstance', { params: { kind: ref.kind, name: ref.name }, body }, opts)
        : call('patchNamespacedInstance', { params: { namespace: ref.namespace!, kind: ref.kind, name: ref.name }, body }, opts);
    },
    delete: (ref, opts) =>
      isClusterScoped(ref)
        ? call('deleteClusterInstance', { params: { kind: ref.kind, name: ref.name } }, opts)
        : call('deleteNamespacedInstance', { params: { namespace: ref.namespace!, kind: ref.kind, name: ref.name } }, opts),
    all: (filter = {}, opts) => paginate((page, pageSize, o) => list({ ...filter, page, pageSize }, o), filter, opts),
  };
};
