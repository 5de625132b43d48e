import path from 'node:path';
import { createLogger, type Logger } from '../../logger.js';
import { createKroController, type KroController } from '../../kro/index.js';
import { refKey, resources, type Cluster, type ResourceRef } from '../../ports/cluster.js';
import { builtinRef, instanceRefOf, sameKind } from './discovery.js';
import { createFileStore } from './file-store.js';
import { applyManifests, readManifests } from './manifests.js';
import { createObjectStore } from './object-store.js';
import { createWatchHub } from './watch-hub.js';

export interface EmbeddedClusterOptions {
  /** Persist every object under this folder; without it the cluster lives in memory only. */
  dataDir?: string;
  /** YAML files or folders applied at start, like `kubectl apply`. */
  manifests?: string[];
  logger?: Logger;
  /** Pace of the simulated kro controller (default 300 ms; 0 = as fast as possible). */
  kroStepMs?: number;
  now?: () => Date;
  /** How often watchers get a BOOKMARK (default 30 s). */
  bookmarkMs?: number;
  /** Events kept per resource for resuming watches (default 5,000). */
  maxWatchEvents?: number;
}

export interface EmbeddedCluster extends Cluster {
  /** The simulated kro controller, running over this cluster's own Cluster port. */
  controller: KroController;
}

/**
 * A fresh store starts here rather than at 0: like a compacted etcd, versions from before the store existed
 * (e.g. "1") answer 410 Gone, and every version a client holds is one this store handed out.
 */
const FIRST_RESOURCE_VERSION = 100;

/** An in-process Kubernetes-like API with a simulated kro, for development, demos and tests. */
export async function createEmbeddedCluster(opts: EmbeddedClusterOptions = {}): Promise<EmbeddedCluster> {
  const logger = opts.logger ?? createLogger('silent');
  const now = opts.now ?? (() => new Date());
  const fileStore = opts.dataDir ? createFileStore(path.resolve(opts.dataDir), logger) : undefined;
  const loaded = fileStore ? await fileStore.load() : { objects: [], resourceVersion: 0 };
  const initial = { ...loaded, resourceVersion: Math.max(loaded.resourceVersion, FIRST_RESOURCE_VERSION) };
  const watchHub = createWatchHub({
    maxEvents: opts.maxWatchEvents ?? 5000,
    startVersion: initial.resourceVersion,
    onHandlerError: (err, ref) => logger.error({ err, kind: ref.kind }, 'watch event handler failed'),
  });
  const store = createObjectStore({ watchHub, fileStore, now, initial });

  const discover = async (group: string, version: string, kind: string): Promise<ResourceRef | undefined> => {
    const builtin = builtinRef(group, version, kind);
    if (builtin) return builtin;
    // Read in place: discovery runs per instance create and per catalog kind, and needs only spec.schema.
    for (const rgd of store.stored(resources.rgd)) {
      const declared = instanceRefOf(rgd);
      if (declared && sameKind(declared, { group, version, kind })) return declared;
    }
    return undefined;
  };

  if (opts.manifests?.length) {
    try {
      await applyManifests(await readManifests(opts.manifests), { store, discover, logger });
    } catch (err) {
      await store.close();
      throw err;
    }
  }

  const bookmarks = setInterval(() => watchHub.bookmark(store.resourceVersion()), opts.bookmarkMs ?? 30_000);
  bookmarks.unref();
  let closed = false;
  let controller: KroController | undefined;

  const port: Cluster = {
    async list(ref, listOpts) {
      return { items: store.list(ref, listOpts), resourceVersion: String(store.resourceVersion()) };
    },
    async get(ref, name, namespace) {
      return store.get(ref, name, namespace);
    },
    create: (ref, obj) => store.create(ref, obj),
    patch: (ref, name, patch, patchOpts) => store.patch(ref, name, patch, patchOpts),
    delete: (ref, name, namespace) => store.delete(ref, name, namespace),
    watch(ref, watchOpts, handlers) {
      return watchHub.watch(ref, watchOpts, handlers, () => store.list(ref, { namespace: ref.namespaced ? watchOpts.namespace : undefined }));
    },
    discover,
    health: () => (closed ? { ok: false, message: 'embedded cluster is closed' } : { ok: true }),
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(bookmarks);
      await controller?.close();
      await store.close();
      watchHub.closeAll();
      logger.info({ refs: store.refs().map(refKey) }, 'embedded cluster stopped');
    },
  };
  // kro runs beside the API server and talks to it like any client: through the Cluster port.
  controller = createKroController(port, { stepMs: opts.kroStepMs ?? 300, now, logger });
  logger.info({ dataDir: opts.dataDir ?? null, objects: initial.objects.length }, 'embedded cluster started');
  return Object.assign(port, { controller });
}
