import path from 'node:path';
import { createLogger, type Logger } from '../../logger.js';
import { createKroController, type KroController } from './kro/index.js';
import { refKey, resources, type AdmissionWebhook, type Cluster, type Disposable, type KubeObject, type ResourceRef } from '../../ports/cluster.js';
import { builtinRef, builtinResources, customResourceDefinition, instanceRefOf, refsOfCrd } from './discovery.js';
import { lockDataDir } from './data-dir-lock.js';
import { createFileStore, type FileStore } from './file-store.js';
import { applyManifests, manifestsDigest, parseManifestFiles, readManifestFiles } from './manifests.js';

/** The digest of the manifest files as last applied in full, kept in the data dir. */
const MANIFESTS_APPLIED = 'manifests-applied';
import { createObjectStore } from './object-store.js';
import { deepEqual } from './json.js';
import { isPorticoError } from '../../errors.js';

/** A write that changed nothing but `status` (what kro and other controllers write through /status). */
const sameButStatus = (a: KubeObject, b: KubeObject) => {
  const { status: _a, ...restA } = a;
  const { status: _b, ...restB } = b;
  return deepEqual(restA, restB);
};
import { createWatchHub } from './watch-hub.js';

export interface EmbeddedClusterOptions {
  /** Persist every object under this folder (snapshot + journal); without it the cluster lives in memory only. */
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
  /**
   * Kubernetes Events kept (default 1,000): a real API server expires them after an hour; here the oldest go
   * once there are more than this, so a long-running development cluster does not grow without end.
   */
  maxKubernetesEvents?: number;
}

export type { AdmissionRequest, AdmissionWebhook } from '../../ports/cluster.js';

export interface EmbeddedCluster extends Cluster {
  /** The simulated kro controller, running over this cluster's own Cluster port. */
  controller: KroController;
  addAdmissionWebhook(webhook: AdmissionWebhook): Disposable;
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
  const dataDir = opts.dataDir ? path.resolve(opts.dataDir) : undefined;
  // Before anything is read: a start also repairs the folder (torn journal lines, temp files), which must not
  // happen under a process still writing it.
  const lock = dataDir ? await lockDataDir(dataDir, logger) : undefined;
  const fileStore = dataDir ? createFileStore(dataDir, logger) : undefined;
  let loaded: Awaited<ReturnType<FileStore['load']>> = { objects: [], resourceVersion: 0 };
  try {
    if (fileStore) loaded = await fileStore.load();
  } catch (err) {
    await lock?.release();
    throw err;
  }
  const initial = { ...loaded, resourceVersion: Math.max(loaded.resourceVersion, FIRST_RESOURCE_VERSION) };
  const watchHub = createWatchHub({
    maxEvents: opts.maxWatchEvents ?? 5000,
    startVersion: initial.resourceVersion,
    onHandlerError: (err, ref) => logger.error({ err, kind: ref.kind }, 'watch event handler failed'),
  });
  const store = createObjectStore({ watchHub, fileStore, now, initial });

  /**
   * Every kind the stored RGDs and CRDs declare (the first declaration of a kind wins, RGDs before CRDs), worked
   * out in one pass and kept until an RGD or a CRD changes: discovery runs per instance create and per catalog
   * kind, and a start over 1,000 catalog kinds would otherwise read every RGD once per kind.
   */
  let declared: { rgds: number; crds: number; kinds: Map<string, ResourceRef> } | undefined;
  const kindKey = (group: string, version: string, kind: string) => `${group}/${version}/${kind}`;
  const declaredKinds = (): Map<string, ResourceRef> => {
    const rgds = store.revision(resources.rgd);
    const crds = store.revision(customResourceDefinition);
    if (declared?.rgds === rgds && declared.crds === crds) return declared.kinds;
    const kinds = new Map<string, ResourceRef>();
    const add = (ref: ResourceRef) => {
      const key = kindKey(ref.group, ref.version, ref.kind);
      if (!kinds.has(key)) kinds.set(key, ref);
    };
    // Read in place: only spec.schema (and a CRD's names and versions) is needed.
    for (const rgd of store.stored(resources.rgd)) {
      const ref = instanceRefOf(rgd);
      if (ref) add(ref);
    }
    for (const crd of store.stored(customResourceDefinition)) refsOfCrd(crd).forEach(add);
    declared = { rgds, crds, kinds };
    return kinds;
  };

  const discover = async (group: string, version: string, kind: string): Promise<ResourceRef | undefined> => {
    const builtin = builtinRef(group, version, kind);
    if (builtin) return builtin;
    const ref = declaredKinds().get(kindKey(group, version, kind));
    return ref && { ...ref };
  };

  try {
    if (opts.manifests?.length) {
      const files = await readManifestFiles(opts.manifests);
      const digest = manifestsDigest(files);
      // Files unchanged since a start applied them all are not applied again (every document would be found
      // as it was last applied): a restart reads them, it does not parse them. So an object deleted through the
      // API stays deleted until its file changes.
      if (!fileStore || (await fileStore.readNote(MANIFESTS_APPLIED)) !== digest) {
        // Nothing is acknowledged to anyone before start-up ends: one fsync for the whole load, not one per object.
        fileStore?.deferSync();
        const { skipped } = await applyManifests(parseManifestFiles(files), { store, discover, logger });
        await fileStore?.endDeferredSync();
        // A document of a kind not known yet is tried again at the next start.
        if (skipped === 0) await fileStore?.writeNote(MANIFESTS_APPLIED, digest);
      }
    }
    await store.compactIfDue();
  } catch (err) {
    await store.close();
    await lock?.release();
    throw err;
  }

  const maxKubernetesEvents = opts.maxKubernetesEvents ?? 1000;
  const pruneOnce = async () => {
    const stored = [...store.stored(resources.event)];
    if (stored.length <= maxKubernetesEvents) return;
    const oldestFirst = stored.sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion));
    for (const event of oldestFirst.slice(0, stored.length - maxKubernetesEvents)) {
      await store.delete(resources.event, event.metadata.name, event.metadata.namespace).catch(() => undefined); // already gone is fine
    }
  };
  // One pruning at a time: a controller records events in bursts, and concurrent prunings would each sort the
  // same thousand events and race to delete the same oldest ones (a NOT_FOUND error per loser, per event).
  let pruning: Promise<void> | undefined;
  let pruneAgain = false;
  const pruneEvents = (): Promise<void> => {
    if (pruning) {
      pruneAgain = true;
      return pruning;
    }
    pruning = (async () => {
      do {
        pruneAgain = false;
        await pruneOnce();
      } while (pruneAgain);
    })().finally(() => {
      pruning = undefined;
    });
    return pruning;
  };

  const bookmarks = setInterval(() => watchHub.bookmark(store.resourceVersion()), opts.bookmarkMs ?? 30_000);
  bookmarks.unref();
  let closed = false;
  let controller: KroController | undefined;
  const webhooks = new Set<AdmissionWebhook>();

  /**
   * A patch as the API server admits an UPDATE: the webhooks review the object the patch would leave (a dry
   * run), then exactly that is written, guarded by the version reviewed. A writer that came in between means
   * reviewing again (or the caller's own 409 when it named a version).
   */
  const reviewedPatch = async (ref: ResourceRef, name: string, patch: Record<string, unknown>, patchOpts: { namespace?: string; resourceVersion?: string } = {}) => {
    for (let attempt = 1; ; attempt++) {
      const current = store.get(ref, name, patchOpts.namespace);
      const guarded = { ...patchOpts, resourceVersion: patchOpts.resourceVersion ?? current?.metadata.resourceVersion };
      const next = await store.patch(ref, name, patch, { ...guarded, dryRun: true }); // NOT_FOUND, CONFLICT, 400 as the write would
      if (current && next !== current && !sameButStatus(current, next)) {
        for (const webhook of webhooks) await webhook(ref, next, { operation: 'UPDATE', oldObject: current });
      }
      try {
        return await store.patch(ref, name, patch, guarded);
      } catch (err) {
        if (patchOpts.resourceVersion !== undefined || !isPorticoError(err) || err.code !== 'CONFLICT' || attempt >= 20) throw err;
      }
    }
  };

  const port: Cluster = {
    async list(ref, listOpts) {
      return { items: store.list(ref, listOpts), resourceVersion: String(store.resourceVersion()) };
    },
    async get(ref, name, namespace) {
      return store.get(ref, name, namespace);
    },
    async create(ref, obj, createOpts = {}) {
      for (const webhook of webhooks) await webhook(ref, obj, { operation: 'CREATE' });
      if (createOpts.dryRun) return store.create(ref, obj, { dryRun: true });
      const created = await store.create(ref, obj);
      if (refKey(ref) === refKey(resources.event)) await pruneEvents();
      return created;
    },
    patch: (ref, name, patch, patchOpts) => (webhooks.size === 0 ? store.patch(ref, name, patch, patchOpts) : reviewedPatch(ref, name, patch, patchOpts)),
    delete: (ref, name, namespace) => store.delete(ref, name, namespace),
    watch(ref, watchOpts, handlers) {
      return watchHub.watch(ref, watchOpts, handlers, () => store.list(ref, { namespace: ref.namespaced ? watchOpts.namespace : undefined }));
    },
    discover,
    // What it serves: the built-in kinds and every kind a stored RGD or CRD declares.
    apiResources: async () => [...builtinResources(), ...[...declaredKinds().values()].map((ref) => ({ ...ref }))],
    health: () => (closed ? { ok: false, message: 'embedded cluster is closed' } : { ok: true }),
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(bookmarks);
      await controller?.close();
      // A stop is the cheap moment to fold a long journal into the snapshot: the next start reads one line per
      // object instead of one per change. If it fails, the journal is still whole and is replayed as before.
      await store.compactIfDue({ stopping: true }).catch((err: unknown) => logger.warn({ err }, 'could not write the snapshot at stop; the journal is kept'));
      await store.close().finally(() => lock?.release());
      watchHub.closeAll();
      logger.info({ refs: store.refs().map(refKey) }, 'embedded cluster stopped');
    },
  };
  // kro runs beside the API server and talks to it like any client: through the Cluster port.
  controller = createKroController(port, { stepMs: opts.kroStepMs ?? 300, now, logger });
  logger.info({ dataDir: opts.dataDir ?? null, objects: initial.objects.length }, 'embedded cluster started');
  const addAdmissionWebhook = (webhook: AdmissionWebhook): Disposable => {
    webhooks.add(webhook);
    return { close: () => void webhooks.delete(webhook) };
  };
  return Object.assign(port, { controller, addAdmissionWebhook });
}
