import type { CatalogEntry } from '../catalog/index.js';
import type { InformerEvent } from '../cluster/informer-types.js';
import type { Logger } from '../logger.js';
import type { Cluster, Disposable, KubeObject, ResourceRef } from '../ports/cluster.js';
import type { CatalogSource, CreateInformer, KindIndexed, WatchedKind } from './index-types.js';
import { instanceId } from './instance-resource.js';
import { gvk, type IndexStore } from './index-store.js';

const integer = /^\d+$/;

function highestVersion(objects: KubeObject[]): string {
  let best = '';
  for (const o of objects) {
    const rv = o.metadata.resourceVersion ?? '';
    if (!best || (integer.test(rv) && integer.test(best) ? BigInt(rv) > BigInt(best) : rv > best)) best = rv;
  }
  return best;
}

interface IndexKinds {
  /** Starts an informer for every catalog kind and follows catalog changes; resolves when all have synced. */
  start(): Promise<void>;
  /** Stops every informer and stops following the catalog (the store is the caller's to clear). */
  stop(): void;
  refOf(entry: CatalogEntry): ResourceRef | undefined;
  /** Resolves after pending informer starts/stops. */
  settled(): Promise<void>;
}

interface IndexKindsDeps {
  cluster: Cluster;
  catalog: CatalogSource;
  createInformer: CreateInformer;
  logger: Logger;
  store: IndexStore;
  /** A kind joined after start() and brought instances along. */
  kindIndexed(joined: KindIndexed): void;
}

/**
 * The informers of the index: one per catalog RGD kind, started when the RGD enters the catalog and stopped when
 * it leaves; their events go to the store.
 */
export function createIndexKinds({ cluster, catalog, createInformer, logger, store, kindIndexed }: IndexKindsDeps): IndexKinds {
  const watched = new Map<string, WatchedKind>();
  let catalogSubscription: Disposable | undefined;
  let stopped = false;
  /** True once the kinds of the catalog at start() are indexed: later kinds are news to subscribers. */
  let started = false;
  // Informer starts and stops run one at a time, in catalog-event order.
  let queue: Promise<void> = Promise.resolve();

  const onInformerEvent = (kind: WatchedKind) => (event: InformerEvent) => {
    if (event.type === 'DELETED') store.remove(instanceId(store.keyOfKind(event.object, kind)), 'DELETED');
    // The first list is indexed without events: a (re)start of this process is not news to subscribers.
    else store.upsert(event.object, kind, event.type, kind.syncing);
  };

  const startKind = async (entry: CatalogEntry) => {
    const ref = await cluster.discover(entry.group, entry.version, entry.kind);
    if (!ref) {
      // The CRD is not served yet (RGD not Active); the RGD's next update retries.
      logger.debug({ rgd: entry.name, kind: entry.kind }, 'instance kind not served yet');
      return;
    }
    if (stopped || watched.has(gvk(entry))) return;
    const informer = createInformer(cluster, ref, { logger });
    const kind: WatchedKind = { ref, informer, entry, subscription: { close() {} }, syncing: true };
    watched.set(gvk(entry), kind);
    kind.subscription = informer.on(onInformerEvent(kind));
    try {
      await informer.start();
    } catch (err) {
      logger.warn({ err, kind: entry.kind }, 'instance informer did not sync');
    }
    kind.syncing = false;
    const listed = informer.list();
    logger.info({ kind: entry.kind, rgd: entry.name, instances: listed.length }, 'watching instances');
    if (started && !stopped && watched.get(gvk(entry)) === kind && listed.length > 0) {
      kindIndexed({ rgdName: kind.entry.name, ref, instances: listed.length, resourceVersion: highestVersion(listed) });
    }
  };

  const stopKind = (key: string) => {
    const kind = watched.get(key);
    if (!kind) return;
    watched.delete(key);
    kind.subscription.close();
    kind.informer.stop();
    store.removeKind(key);
    logger.info({ kind: kind.entry.kind, rgd: kind.entry.name }, 'stopped watching instances');
  };

  /** Brings the set of informers in line with the catalog: one per kind of a catalog entry. */
  const reconcile = async () => {
    if (stopped) return;
    const wanted = new Map<string, CatalogEntry>();
    for (const entry of catalog.entries()) if (entry.kind && entry.version && !wanted.has(gvk(entry))) wanted.set(gvk(entry), entry);
    for (const key of [...watched.keys()]) if (!wanted.has(key)) stopKind(key);
    await Promise.all(
      [...wanted].map(async ([key, entry]) => {
        const kind = watched.get(key);
        if (kind) kind.entry = entry;
        else await startKind(entry);
      }),
    );
  };

  const enqueue = (work: () => Promise<void>) => {
    queue = queue.then(work).catch((err) => logger.error({ err }, 'instance index reconcile failed'));
    return queue;
  };

  return {
    async start() {
      stopped = false;
      catalogSubscription = catalog.onChange(() => void enqueue(reconcile));
      await enqueue(reconcile);
      started = true;
    },

    stop() {
      stopped = true;
      started = false;
      catalogSubscription?.close();
      catalogSubscription = undefined;
      for (const kind of watched.values()) {
        kind.subscription.close();
        kind.informer.stop();
      }
      watched.clear();
    },

    refOf: (entry) => watched.get(gvk(entry))?.ref,
    settled: () => queue,
  };
}
