import type { InstanceList } from '@portico/api';
import type { Catalog } from '../catalog/index.js';
import type { Informer } from '../cluster/informer-types.js';
import type { PorticoConfig } from '../config.js';
import { publishCatalogChanges, publishRevisionChanges } from '../events/catalog-events.js';
import { notFound } from '../errors.js';
import { publishAll } from '../events/publish.js';
import type { Logger } from '../logger.js';
import type { Cluster, Disposable } from '../ports/cluster.js';
import type { Authorizer, EventsService, InstancesService } from '../types.js';
import type { Actor } from '../actor.js';
import { localGitDeployments, type GitDeployments } from '../repositories/index.js';
import type { InstanceAdmission } from './admission.js';
import { createInstance } from './create-instance.js';
import { deleteInstance } from './delete-instance.js';
import { claimOf, eventsForChange } from './instance-events.js';
import { createInstanceAccess, describeKey } from './instance-access.js';
import { watchDrift } from './drift.js';
import { createInstanceIndex, type CreateInformer, type IndexedInstance, type InstanceIndex } from './instance-index.js';
import { createInstanceHistory, type HistorySubject } from './instance-history.js';
import { recordHistory, type HistoryRecorder } from './history-recorder.js';
import { createHistoryStore, isExpired } from './history-store.js';
import { createHistoryWrites } from './history-writes.js';
import { instanceObject, keyOf } from './instance-resource.js';
import type { InstanceKey } from './instance-key.js';
import { listPage } from './list-query.js';
import { createMemberCounts } from './member-counts.js';
import { patchInstance } from './patch-instance.js';
import { preflightInstance } from './preflight.js';
import { createPageMemo } from '../page-memo.js';

export interface InstancesDeps {
  cluster: Cluster;
  catalog: Catalog;
  authz: Authorizer;
  /** Informer over Project resources (destinations, existence). */
  projects: Informer;
  events: EventsService;
  config: PorticoConfig;
  logger: Logger;
  createInformer: CreateInformer;
  /** §13: Git-mode deployments through the projects' repositories (default: the development repository alone, when set). */
  git?: GitDeployments;
  /** Sets `key` only if absent in the store replicas share (with a lifetime): one replica's periodic drift sweep per period. */
  claim?(key: string, ttlMs: number): Promise<boolean>;
}

export interface Instances extends InstancesService {
  /** Instances per RGD name that `actor` may see: the catalog's `instances` field (only `names`, when given). */
  instanceCounts(actor: Actor, names?: readonly string[]): ReadonlyMap<string, number>;
  /** Starts the instance index (one informer per catalog kind) and event publishing; resolves when synced. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The index, for modules that read instances without a caller (tests, the events bridge). */
  readonly index: InstanceIndex;
  /** Adds a check every create and update passes before anything is written (see admission.ts); in registration order. */
  addAdmission(check: InstanceAdmission): Disposable;
}

/**
 * Instances of catalog RGDs: creation with the contract's checks in order, deployment modes (direct, GitOps,
 * hybrid), and reads served from the instance index, filtered per caller by the policy engine. The writes are
 * create-instance, patch-instance and delete-instance; this file wires them to the index and the events.
 */
export function createInstances(deps: InstancesDeps): Instances {
  const { cluster, catalog, authz, config } = deps;
  const logger = deps.logger.child({ module: 'instances' });
  const index = createInstanceIndex({ cluster, catalog, createInformer: deps.createInformer, logger: deps.logger });
  const git = deps.git ?? localGitDeployments(config, logger);
  const access = createInstanceAccess({ index, authz, git });
  const subscriptions: Disposable[] = [];
  const history = createInstanceHistory({ cluster, catalog });
  const historyStore = createHistoryStore({ cluster, namespace: config.kubernetes.namespace, logger });
  const revisionOf = (rgdName: string) => catalog.entry(rgdName)?.lastIssuedRevision ?? 0;
  const historyWrites = createHistoryWrites(historyStore, logger, revisionOf);
  let recorder: HistoryRecorder | undefined;
  const admissions = new Set<InstanceAdmission>();
  const counts = createMemberCounts(index, authz);
  subscriptions.push(counts);
  const writes = { cluster, catalog, authz, projects: deps.projects, config, logger, index, access, admissions, history: historyWrites };

  /**
   * What the history routes read: the instance when the caller may see it (its history brought up to date first),
   * or, once it is gone (or only in Git), its history for as long as it is kept. Otherwise 404, as for the instance.
   */
  const historySubject = async (actor: Actor, key: InstanceKey): Promise<HistorySubject> => {
    const item = index.get(key);
    if (item && authz.can(actor, 'get', item.rbacObject)) {
      const doc = item.project && recorder ? await recorder.catchUp(item).catch(() => historyStore.read(key)) : await historyStore.read(key);
      return { key, item, ...(doc ? { doc } : {}) };
    }
    const doc = item ? undefined : await historyStore.read(key);
    if (doc && (doc.deletedAt || !doc.uid) && !isExpired(doc, new Date()) && authz.can(actor, 'get', instanceObject(doc.project, key))) return { key, doc };
    throw notFound('instance', describeKey(key));
  };
  /** Events and children are the live object's: the instance itself must be there. */
  const live = (actor: Actor, key: InstanceKey): HistorySubject => ({ key, item: access.getVisible(actor, key) });

  const totalResources = (item: IndexedInstance) => catalog.entry(item.instance.rgdName)?.resources.length ?? 0;

  /** Pages read by position from a sorted view, until the view changes (see listPage). */
  const answeredPages = createPageMemo<InstanceList>();

  const service: Instances = {
    index,
    indexed: { all: () => index.all(), onChange: (listener) => index.onChange(listener), onKindIndexed: (listener) => index.onKindIndexed(() => listener()) },

    addAdmission(check) {
      admissions.add(check);
      return { close: () => void admissions.delete(check) };
    },

    events: async (actor, key) => history.events(live(actor, key)),
    timeline: async (actor, key, source) => history.timeline(await historySubject(actor, key), source),
    children: async (actor, key) => history.children(access.getVisible(actor, key)),
    history: async (actor, key) => history.history(await historySubject(actor, key)),
    historyExport: async (actor, key, format) => history.export(await historySubject(actor, key), format),
    async create(actor, input) {
      const instance = await createInstance(writes, actor, input);
      await historyWrites.created({ namespace: instance.namespace, kind: instance.kind, name: instance.name }, instance);
      return instance;
    },
    preflight: (actor, input) => preflightInstance(writes, actor, input),
    list: (actor, query) => listPage(index, authz, actor, query, answeredPages),
    count: (actor) => counts.count(actor),
    instanceCounts: (actor, names) => counts.countsFor(actor, names),
    get: (actor, key) => access.getVisible(actor, key).instance,
    patch: (actor, key, input) => patchInstance(writes, actor, key, input),
    delete: (actor, key) => deleteInstance(writes, actor, key),

    async start() {
      subscriptions.push(
        index.onChange((change) => {
          const events = eventsForChange(change, totalResources);
          publishAll(deps.events, events, { claim: claimOf(change) }).catch((err) =>
            logger.warn({ err, instance: change.current.id }, 'could not publish instance events'),
          );
        }),
        // Instances that were there before their RGD joined the catalog come in without per-instance events,
        // but they change what callers count.
        index.onKindIndexed((joined) => {
          const claim = `instances-indexed:${joined.ref.group}/${joined.ref.version}/${joined.ref.kind}:${joined.resourceVersion}`;
          publishAll(deps.events, [{ type: 'counts_changed', data: {} }], { claim }).catch((err) =>
            logger.warn({ err, kind: joined.ref.kind }, 'could not publish instance counts'),
          );
        }),
        publishCatalogChanges(catalog, deps.events, logger),
        publishRevisionChanges(catalog, deps.events, logger),
        (recorder = recordHistory({ store: historyStore, index, logger, revisionOf })),
      );
      // §13: Git-mode instances compared with their files, on every change and every period.
      const drift = git && watchDrift({
        index, cluster, git, placementOf: access.placementOf, intervalMs: config.git.driftIntervalMs, logger,
        ...(deps.claim ? { claimSweep: (period: string, ttlMs: number) => deps.claim!(`drift-sweep:${period}`, ttlMs) } : {}),
        onSynced: (item, commit) => void historyWrites.synced(keyOf(item.object), item.instance, commit),
      });
      if (drift) subscriptions.push(drift);
      await index.start();
      drift?.sweep();
    },

    async stop() {
      for (const s of subscriptions.splice(0)) s.close();
      index.stop();
    },
  };
  return service;
}
