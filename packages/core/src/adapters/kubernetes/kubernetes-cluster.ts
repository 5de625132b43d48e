import type { KubeConfig } from '@kubernetes/client-node';
import { badRequest, PorticoError, unavailable } from '../../errors.js';
import { createLogger, type Logger } from '../../logger.js';
import { apiVersionOf, type Cluster, type KubeObject, type ResourceRef } from '../../ports/cluster.js';
import { createDiscovery, type ApiResource, type DiscoveryOptions } from './discovery.js';
import { createHealthTracker } from './health.js';
import { loadKubeConfig } from './kube-config.js';
import { isServerSide, isWebhookDenial, statusOf, toPorticoError } from './kube-errors.js';
import { collectionPath, groupVersionPath, identifierOf, objectPath, scopeOf } from './paths.js';
import { createKubeTransport, TransportError, type KubeRequest, type KubeResponse } from './transport.js';
import { createServedResources } from './served-resources.js';
import { openWatch } from './watch.js';

export interface KubernetesClusterOptions {
  /** Use the pod's service account (KUBERNETES_IN_CLUSTER=true). */
  inCluster: boolean;
  /** A kubeconfig file; otherwise KUBECONFIG or ~/.kube/config. */
  kubeconfigPath?: string;
  /** A ready KubeConfig (tests, embedding programs); wins over the two above. */
  kubeConfig?: KubeConfig;
  logger?: Logger;
  /** Per request (not per watch) timeout; default 10 s. */
  requestTimeoutMs?: number;
  /** Discovery cache tuning (mainly for tests). */
  discovery?: DiscoveryOptions;
  /** Objects per list request (`limit`, followed by `continue`); default 500. */
  listPageSize?: number;
}

/** Page size for lists: large enough to be few requests, small enough not to strain the API server. */
const DEFAULT_LIST_PAGE_SIZE = 500;

/**
 * The Cluster port over a real Kubernetes API server. Objects travel as plain JSON; every Kubernetes answer
 * maps to the port's errors (NOT_FOUND, CONFLICT, SERVICE_UNAVAILABLE) and feeds `health()`.
 *
 * Status: custom resources served with a status subresource (kro instances, RGDs) ignore `status` in a normal
 * patch. Portico never writes status (kro does), so `patch` does not try the `/status` endpoint.
 */
export function createKubernetesCluster(opts: KubernetesClusterOptions): Cluster {
  const kubeConfig = loadKubeConfig(opts);
  const logger = (opts.logger ?? createLogger('silent')).child({ component: 'kubernetes' });
  const timeoutMs = opts.requestTimeoutMs ?? 10_000;
  const pageSize = opts.listPageSize ?? DEFAULT_LIST_PAGE_SIZE;
  const transport = createKubeTransport(kubeConfig);
  const health = createHealthTracker(logger);
  const watches = new Set<{ close(): void }>();
  let closed = false;

  /** One request; answers >= 500 and connection failures become SERVICE_UNAVAILABLE and mark health. */
  const call = async (req: KubeRequest): Promise<KubeResponse> => {
    if (closed) throw unavailable('kubernetes', 1);
    let res: KubeResponse;
    try {
      res = await transport.request(req, timeoutMs);
    } catch (err) {
      const message = err instanceof TransportError ? err.message : `cannot reach the Kubernetes API: ${(err as Error).message}`;
      health.failed(message);
      logger.debug({ err, method: req.method, path: req.path }, 'Kubernetes API request failed');
      throw unavailable('kubernetes', 5, err);
    }
    if (isServerSide(res.status)) health.failed(`${req.method} ${req.path} answered ${res.status}: ${statusOf(res).message}`);
    else health.succeeded();
    if ((res.status === 401 || res.status === 403) && !isWebhookDenial(statusOf(res).message)) {
      logger.error({ method: req.method, path: req.path, status: res.status, message: statusOf(res).message }, 'Kubernetes API refused the request: check the service account RBAC');
    }
    return res;
  };

  const ok = (res: KubeResponse) => res.status >= 200 && res.status < 300;

  const asObject = (ref: ResourceRef, body: unknown): KubeObject => {
    if (typeof body !== 'object' || body === null) throw new PorticoError('INTERNAL_ERROR', 'the Kubernetes API answered without an object');
    const obj = body as KubeObject;
    obj.apiVersion ??= apiVersionOf(ref);
    obj.kind ??= ref.kind;
    return obj;
  };

  const discovery = createDiscovery(async (group, version): Promise<ApiResource[] | undefined> => {
    const res = await call({ method: 'GET', path: groupVersionPath(group, version) });
    if (res.status === 404) return undefined;
    if (!ok(res)) throw toPorticoError(res, { kind: 'APIResourceList', identifier: `${group}/${version}` });
    const list = res.body as { resources?: ApiResource[] };
    return Array.isArray(list?.resources) ? list.resources : [];
  }, opts.discovery);

  const servedResources = createServedResources({
    async groups() {
      const res = await call({ method: 'GET', path: '/apis' });
      if (!ok(res)) throw toPorticoError(res, { kind: 'APIGroupList', identifier: '/apis' });
      const list = res.body as { groups?: { name: string; versions: { version: string }[] }[] };
      return Array.isArray(list?.groups) ? list.groups : [];
    },
    resources: (group, version) => discovery.resources(group, version),
    logger,
  });

  return {
    async list(ref, listOpts = {}) {
      const items: KubeObject[] = [];
      let resourceVersion = '';
      let cont: string | undefined;
      // Pages of one list share the snapshot of the first page, so its resourceVersion is the list's.
      for (;;) {
        const res = await call({
          method: 'GET',
          path: collectionPath(ref, listOpts.namespace),
          query: { labelSelector: listOpts.labelSelector || undefined, fieldSelector: listOpts.fieldSelector || undefined, limit: String(pageSize), continue: cont },
        });
        if (res.status === 410 && cont) {
          // The continue token expired mid-list: start over for a consistent snapshot.
          items.length = 0;
          cont = undefined;
          continue;
        }
        if (!ok(res)) throw toPorticoError(res, { kind: ref.kind, identifier: listOpts.namespace ?? '' });
        const page = res.body as { items?: unknown[]; metadata?: { resourceVersion?: string; continue?: string } };
        if (!cont) resourceVersion = page.metadata?.resourceVersion ?? '';
        for (const item of page.items ?? []) items.push(asObject(ref, item));
        cont = page.metadata?.continue || undefined;
        if (!cont) break;
      }
      return { items, resourceVersion };
    },

    async get(ref, name, namespace) {
      const res = await call({ method: 'GET', path: objectPath(ref, name, namespace) });
      if (res.status === 404) return undefined;
      if (!ok(res)) throw toPorticoError(res, { kind: ref.kind, identifier: identifierOf(ref, name, namespace) });
      return asObject(ref, res.body);
    },

    async create(ref, obj, createOpts = {}) {
      if (typeof obj?.metadata?.name !== 'string') throw badRequest('object metadata.name is required');
      const namespace = scopeOf(ref, obj.metadata.namespace);
      const body = { ...obj, apiVersion: obj.apiVersion ?? apiVersionOf(ref), kind: obj.kind ?? ref.kind };
      const query = createOpts.dryRun ? { dryRun: 'All' } : undefined;
      const res = await call({ method: 'POST', path: collectionPath(ref, namespace), body, query });
      if (!ok(res)) throw toPorticoError(res, { kind: ref.kind, identifier: identifierOf(ref, obj.metadata.name, namespace) });
      return asObject(ref, res.body);
    },

    async patch(ref, name, patch, patchOpts = {}) {
      if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) throw badRequest('a merge patch must be a JSON object');
      const body: Record<string, unknown> = { ...patch };
      if (patchOpts.resourceVersion) {
        // Optimistic concurrency: the API server compares this with the stored version and answers 409 Conflict.
        const metadata = typeof patch.metadata === 'object' && patch.metadata !== null ? patch.metadata : {};
        body.metadata = { ...metadata, resourceVersion: patchOpts.resourceVersion };
      }
      const res = await call({
        method: 'PATCH',
        path: objectPath(ref, name, patchOpts.namespace),
        body,
        contentType: 'application/merge-patch+json',
      });
      if (!ok(res)) throw toPorticoError(res, { kind: ref.kind, identifier: identifierOf(ref, name, patchOpts.namespace) });
      return asObject(ref, res.body);
    },

    async delete(ref, name, namespace) {
      const res = await call({
        method: 'DELETE',
        path: objectPath(ref, name, namespace),
        // Dependents go in the background, as `kubectl delete` does; finalizers (kro's) still hold the object.
        body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' },
      });
      if (!ok(res)) throw toPorticoError(res, { kind: ref.kind, identifier: identifierOf(ref, name, namespace) });
    },

    watch(ref, watchOpts, handlers) {
      if (closed) {
        queueMicrotask(() => handlers.onError({ gone: false, message: 'kubernetes cluster client is closed' }));
        return { close() {} };
      }
      const watch = openWatch({
        transport,
        ref,
        namespace: watchOpts.namespace,
        resourceVersion: watchOpts.resourceVersion,
        handlers,
        connectTimeoutMs: timeoutMs,
        health,
        logger,
      });
      watches.add(watch);
      void watch.done.then(() => watches.delete(watch));
      return watch;
    },

    discover: (group, version, kind) => discovery.discover(group, version, kind),

    apiResources: servedResources,

    health: () => (closed ? { ok: false, message: 'kubernetes cluster client is closed' } : health.current()),

    async close() {
      closed = true;
      for (const watch of [...watches]) watch.close();
      watches.clear();
    },
  };
}
