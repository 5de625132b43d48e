import { createInformer as defaultCreateInformer, type InformerOptions } from '../../../cluster/informer.js';
import { objectKey, type Informer, type InformerEvent } from '../../../cluster/informer-types.js';
import { isPorticoError } from '../../../errors.js';
import { createLogger, type Logger } from '../../../logger.js';
import { refKey, resources, type Cluster, type Disposable, type KubeObject, type ResourceRef } from '../../../ports/cluster.js';
import { instanceRefOf } from './instance-kind.js';
import {
  activeConditions,
  deletingConditions,
  failedConditions,
  observedGenerationOf,
  progressingConditions,
  readyCountOf,
  rgdActiveConditions,
  rgdInactiveConditions,
  sameStatus,
  withTransitions,
  type ConditionSpec,
} from './kro-status.js';
import { createKroEventRecorder, failureEvents, stepEvents, type KroEvent } from './kro-events.js';
import { analyseResources } from './resource-graph.js';
import { describeResources, type ResourceDescription } from '../../../catalog/resource-descriptions.js';

export const KRO_FINALIZER = 'kro.run/finalizer';
export const SIMULATE_FAILURE_ANNOTATION = 'portico.dev/simulate-failure';

/**
 * A stand-in for the kro controller, working only through the Cluster port (informers to read, merge patches to
 * write, status included), so it runs inside the embedded cluster and beside Portico against a Kubernetes API
 * alike. RGDs become Active (or Inactive on a bad graph), instances walk their resources in dependency order,
 * one resource per step, and can be made to fail or be deleted. It is level-triggered: every reconcile compares
 * the object with what kro would want, so it picks up correctly after a restart.
 */
export interface KroController {
  /**
   * Resolves when no RGD or instance has pending work. Changes made before the call count once their watch event
   * has arrived: immediate in the embedded cluster; over HTTP, wait for the effect instead.
   */
  settle(): Promise<void>;
  /**
   * Resolves once every RGD known at the call has its state (instances may still be walking): what a server
   * waits for before serving, so the catalog is never briefly Inactive and 20k instances do not delay readiness.
   */
  settleRgds(): Promise<void>;
  /** Makes the instance's walk fail at `resourceId` (sets the simulate-failure annotation). */
  failResource(ref: ResourceRef, namespace: string | undefined, name: string, resourceId: string): Promise<void>;
  close(): Promise<void>;
}

export interface KroControllerOptions {
  /** Pause between steps while something is in flight (default 300 ms; 0 = as fast as possible). */
  stepMs?: number;
  logger?: Logger;
  now?: () => Date;
  /** Tuning of the controller's informers (stall detection, backoff). */
  informer?: Pick<InformerOptions, 'stallMs' | 'backoff'>;
}

/** An instance kind kro serves for an RGD, with the informer the controller reads it through. */
interface ManagedKind {
  ref: ResourceRef;
  informer: Informer;
  subscription: Disposable;
  /** The RGD that owns the kind now; undefined once it is gone or invalid (then only finalizers are released). */
  owner?: string;
  /** Resource ids in the owner's topological order. */
  order: string[];
  /** The owner's resources, to name the objects its Events are about. */
  graph: ResourceDescription[];
}

interface WorkItem {
  kind: ManagedKind;
  key: string;
}

/** Resource versions are opaque, but the API server's and ours are integers: compare them when they are. */
function newerThan(candidate: string | undefined, known: string | undefined): boolean {
  if (!candidate || !known) return candidate !== known;
  if (/^\d+$/.test(candidate) && /^\d+$/.test(known)) return BigInt(candidate) > BigInt(known);
  return candidate !== known;
}

/** The least pause after a step that failed (the API server did not answer). */
const FAILED_STEP_RETRY_MS = 250;

/** Instance reconciles (one write each at most) that run at the same time within a step. */
const INSTANCE_WRITES_IN_FLIGHT = 64;

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createKroController(cluster: Cluster, opts: KroControllerOptions = {}): KroController {
  const stepMs = opts.stepMs ?? 300;
  const logger = (opts.logger ?? createLogger('silent')).child({ component: 'kro-simulator' });
  const clock = opts.now ?? (() => new Date());
  const now = () => clock().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const informerOptions = { logger, ...opts.informer };
  const recordEvents = createKroEventRecorder(cluster, logger, now);

  const kinds = new Map<string, ManagedKind>();
  /** RGDs to reconcile on the next step. */
  const dirtyRgds = new Set<string>();
  /** RGDs changed by someone else and not reconciled since (a second look after our own write does not count). */
  const unsettledRgds = new Set<string>();
  /** Instances with work to do (or to look at once more): only these are reconciled, never every instance. */
  const inFlight = new Map<string, WorkItem>();
  /**
   * What our own writes returned, until the informer shows that version (or a later one): reconciling from a
   * cache that lags our last write would only earn a conflict.
   */
  const written = new Map<string, KubeObject>();

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let idle = true;
  let woken = false;
  let stopped = false;
  let pendingStarts = 0;
  let rgdInformerStarted = false;
  let waiters: (() => void)[] = [];
  let rgdWaiters: (() => void)[] = [];

  const idOf = (ref: ResourceRef, key: string) => `${refKey(ref)}|${key}`;

  const quiet = () => stopped || (idle && pendingStarts === 0);
  const rgdsQuiet = () => quiet() || (rgdInformerStarted && unsettledRgds.size === 0);
  const notifyRgdsIfQuiet = () => {
    if (!rgdsQuiet()) return;
    const resolved = rgdWaiters;
    rgdWaiters = [];
    for (const resolve of resolved) resolve();
  };
  const notifyIfQuiet = () => {
    notifyRgdsIfQuiet();
    if (!quiet()) return;
    const resolved = waiters;
    waiters = [];
    for (const resolve of resolved) resolve();
  };

  // ---- scheduling: from idle react at once (kro reacts to watch events); while walking, one step per stepMs --
  const schedule = (delayMs: number) => {
    idle = false;
    timer = setTimeout(run, delayMs);
    timer.unref();
  };

  const wake = () => {
    woken = true;
    if (idle && !stopped) schedule(0);
  };

  function run() {
    timer = undefined;
    woken = false;
    let failed = false;
    running = step()
      .catch((err) => {
        failed = true;
        if (!stopped) logger.warn({ err: String(err) }, 'kro simulator: step failed, retrying');
        return true;
      })
      .then((busy) => {
        running = undefined;
        if (stopped) return;
        // Failures wait a little longer, so an unreachable API server is not hammered at the walking pace.
        if (failed) schedule(Math.max(stepMs, FAILED_STEP_RETRY_MS));
        else if (busy || woken) schedule(stepMs);
        else {
          idle = true;
          notifyIfQuiet();
        }
      });
  }

  // ---- reading and writing ------------------------------------------------------------------------------
  /** The newest of the informer's copy and what our last write returned. */
  const current = (ref: ResourceRef, informer: Informer, key: string): KubeObject | undefined => {
    const id = idOf(ref, key);
    const cached = informer.get(...nameAndNamespace(key));
    const mine = written.get(id);
    // Everything reconciled came through the informer first: gone from it means deleted.
    if (!cached || !mine) {
      if (!cached) written.delete(id);
      return cached;
    }
    if (!newerThan(mine.metadata.resourceVersion, cached.metadata.resourceVersion)) {
      written.delete(id);
      return cached;
    }
    return mine;
  };

  /**
   * A merge patch guarded by the resourceVersion we reconciled from. Returns whether more work may follow: a
   * conflict (someone else wrote) re-reads the object and tries again next step; a vanished object needs nothing.
   */
  const write = async (ref: ResourceRef, obj: KubeObject, patch: Record<string, unknown>, events?: { graph: ResourceDescription[]; list: KroEvent[] }): Promise<boolean> => {
    const { name, namespace } = obj.metadata;
    const id = idOf(ref, objectKey(obj));
    try {
      const result = await cluster.patch(ref, name, patch, { namespace, resourceVersion: obj.metadata.resourceVersion });
      written.set(id, result);
      // Reported only once the change is stored: a write that lost a race is retried, and reports then.
      if (events?.list.length) await recordEvents(ref, result, events.graph, events.list);
      return true;
    } catch (err) {
      if (!isPorticoError(err)) throw err;
      if (err.code === 'NOT_FOUND') {
        written.delete(id);
        return false;
      }
      if (err.code !== 'CONFLICT') throw err;
      const fresh = await cluster.get(ref, name, namespace);
      if (fresh) written.set(id, fresh);
      else written.delete(id);
      return fresh !== undefined;
    }
  };

  const statusPatch = (obj: KubeObject, state: string, conditions: ConditionSpec[]) => ({
    state,
    conditions: withTransitions(obj.status?.conditions, conditions, obj.metadata.generation ?? 1, now()),
  });

  // ---- instance kinds -----------------------------------------------------------------------------------
  const onInstanceEvent = (kind: ManagedKind) => (event: InformerEvent) => {
    const key = objectKey(event.object);
    const id = idOf(kind.ref, key);
    if (event.type === 'DELETED') {
      inFlight.delete(id);
      written.delete(id);
      return;
    }
    const mine = written.get(id);
    if (mine) {
      // Our own write coming back (or an older one): nothing new to react to.
      if (!newerThan(event.object.metadata.resourceVersion, mine.metadata.resourceVersion)) {
        if (event.object.metadata.resourceVersion === mine.metadata.resourceVersion) written.delete(id);
        return;
      }
      written.delete(id);
    }
    inFlight.set(id, { kind, key });
    wake();
  };

  const releasable = (obj: KubeObject) => obj.metadata.deletionTimestamp && obj.metadata.finalizers?.includes(KRO_FINALIZER);

  /** Once per kind change (new owner, new graph, owner gone): every instance of the kind gets a look. */
  const revisitAll = (kind: ManagedKind, only: (obj: KubeObject) => boolean = () => true) => {
    for (const obj of kind.informer.list()) {
      if (only(obj)) inFlight.set(idOf(kind.ref, objectKey(obj)), { kind, key: objectKey(obj) });
    }
  };

  /** kro starts serving (and reconciling) the instance kind of a valid RGD. */
  const adopt = (rgdName: string, ref: ResourceRef, order: string[], graph: ResourceDescription[]) => {
    const existing = kinds.get(refKey(ref));
    if (existing) {
      if (existing.owner !== undefined && existing.owner !== rgdName) return; // another RGD serves this kind
      const changed = existing.owner !== rgdName || existing.order.join() !== order.join();
      existing.owner = rgdName;
      existing.order = order;
      existing.graph = graph;
      if (changed) revisitAll(existing);
      return;
    }
    const informer = defaultCreateInformer(cluster, ref, informerOptions);
    const kind: ManagedKind = { ref, informer, subscription: { close() {} }, owner: rgdName, order, graph };
    kinds.set(refKey(ref), kind);
    kind.subscription = informer.on(onInstanceEvent(kind));
    pendingStarts += 1;
    informer
      .start()
      .catch((err) => {
        if (!stopped) logger.warn({ err: String(err), kind: ref.kind }, 'kro simulator: instance informer did not start');
      })
      .finally(() => {
        pendingStarts -= 1;
        notifyIfQuiet();
      });
  };

  /** The RGD no longer serves its kind: instances being deleted must not keep our finalizer forever. */
  const disown = (rgdName: string) => {
    for (const kind of kinds.values()) {
      if (kind.owner !== rgdName) continue;
      kind.owner = undefined;
      revisitAll(kind, (obj) => Boolean(releasable(obj)));
      // Another RGD may declare the same kind and take it over.
      for (const rgd of rgdInformer.list()) if (rgd.metadata.name !== rgdName) dirtyRgds.add(rgd.metadata.name);
    }
  };

  // ---- reconcilers --------------------------------------------------------------------------------------
  /** Returns true when it wrote something (another look is needed to observe the result). */
  const reconcileRgd = async (name: string): Promise<boolean> => {
    const rgd = current(resources.rgd, rgdInformer, name);
    if (!rgd || rgd.metadata.deletionTimestamp) {
      disown(name);
      return false;
    }
    const graph = analyseResources(rgd.spec?.resources);
    const instanceRef = instanceRefOf(rgd);
    let desired: Record<string, unknown>;
    if (!instanceRef) desired = statusPatch(rgd, 'Inactive', rgdInactiveConditions('spec.schema needs apiVersion and kind'));
    else if (!graph.ok) desired = statusPatch(rgd, 'Inactive', rgdInactiveConditions(graph.message));
    else {
      desired = {
        ...statusPatch(rgd, 'Active', rgdActiveConditions(`${instanceRef.plural}.${instanceRef.group}`)),
        topologicalOrder: graph.order,
      };
    }
    if (instanceRef && graph.ok) adopt(name, instanceRef, graph.order, describeResources(rgd.spec?.resources));
    else disown(name);
    if (sameStatus(rgd.status, desired)) return false;
    // The whole status is replaced: null out keys the new state does not have (e.g. topologicalOrder).
    const cleared = Object.fromEntries(Object.keys(rgd.status ?? {}).map((k) => [k, null]));
    return write(resources.rgd, rgd, { status: { ...cleared, ...desired } });
  };

  const reconcileInstance = async (kind: ManagedKind, inst: KubeObject): Promise<boolean> => {
    const { ref, order } = kind;
    const finalizers = inst.metadata.finalizers ?? [];
    const withoutOurs = () => {
      const rest = finalizers.filter((f) => f !== KRO_FINALIZER);
      return write(ref, inst, { metadata: { finalizers: rest.length ? rest : null } });
    };
    if (kind.owner === undefined) return releasable(inst) ? withoutOurs() : false;

    const total = order.length;
    const setStatus = (state: string, conditions: ConditionSpec[], extra: Record<string, unknown> = {}, events: KroEvent[] = []) =>
      write(ref, inst, { ...extra, status: statusPatch(inst, state, conditions) }, { graph: kind.graph, list: events });
    const reconciling = (message: string): KroEvent[] => [{ type: 'Normal', reason: 'Reconciling', message }];
    const restartWalk = (why: string) => setStatus('IN_PROGRESS', progressingConditions(0, total, order[0]), {}, reconciling(why));

    if (inst.metadata.deletionTimestamp) {
      if (!finalizers.includes(KRO_FINALIZER)) return false;
      if (inst.status?.state !== 'DELETING') {
        return setStatus('DELETING', deletingConditions(inst.status?.conditions), {}, [{ type: 'Normal', reason: 'Deleting', message: 'Deleting managed resources' }]);
      }
      return withoutOurs();
    }
    if (!finalizers.includes(KRO_FINALIZER)) {
      return setStatus('IN_PROGRESS', progressingConditions(0, total, order[0]), { metadata: { finalizers: [...finalizers, KRO_FINALIZER] } }, reconciling(`Reconciling: ${total} resources to create`));
    }
    if (observedGenerationOf(inst.status?.conditions) !== (inst.metadata.generation ?? 1)) {
      return restartWalk(`Spec changed (generation ${inst.metadata.generation ?? 1}): reconciling`);
    }

    const failing = inst.metadata.annotations?.[SIMULATE_FAILURE_ANNOTATION];
    const failIndex = failing ? order.indexOf(failing) : -1;
    const state = inst.status?.state;
    if (state === 'ERROR') return failIndex >= 0 ? false : restartWalk('Retrying after the failure was cleared'); // annotation removed: kro retries
    const ready = Math.min(readyCountOf(inst.status?.conditions), total);
    if (failIndex >= 0 && ready >= failIndex) {
      return setStatus('ERROR', failedConditions(failIndex, total, failing!), {}, failureEvents(kind.graph, inst, failing!));
    }
    if (state === 'ACTIVE') return false;
    if (state !== 'IN_PROGRESS') return restartWalk('Reconciling');
    const nowReady = ready + 1;
    const created = stepEvents(kind.graph, inst, order[ready], nowReady, total);
    if (nowReady >= total) return setStatus('ACTIVE', activeConditions(total), {}, created);
    return setStatus('IN_PROGRESS', progressingConditions(nowReady, total, order[nowReady]), {}, created);
  };

  /**
   * One step: the RGDs that changed, then every in-flight instance moves by at most one write. A failed write
   * (API unreachable) ends the step and leaves the object pending, so the next step tries again.
   */
  const step = async (): Promise<boolean> => {
    if (stopped) return false;
    // RGDs are independent too, and hold readiness: their writes go out together.
    await Promise.all(
      [...dirtyRgds].map(async (name) => {
        dirtyRgds.delete(name);
        try {
          if (await reconcileRgd(name)) dirtyRgds.add(name);
          unsettledRgds.delete(name);
        } catch (err) {
          dirtyRgds.add(name);
          throw err;
        }
      }),
    );
    notifyRgdsIfQuiet();
    // Instances are independent: a batch of writes in flight at once lets the API server (or the embedded
    // store's journal) take them together instead of one round trip each.
    const work = [...inFlight];
    for (let i = 0; i < work.length; i += INSTANCE_WRITES_IN_FLIGHT) {
      if (stopped) return false;
      await Promise.all(
        work.slice(i, i + INSTANCE_WRITES_IN_FLIGHT).map(async ([id, item]) => {
          inFlight.delete(id); // an event during the reconcile puts it back
          try {
            const inst = current(item.kind.ref, item.kind.informer, item.key);
            if (inst && (await reconcileInstance(item.kind, inst))) inFlight.set(id, item);
          } catch (err) {
            inFlight.set(id, item);
            throw err;
          }
        }),
      );
    }
    return dirtyRgds.size > 0 || inFlight.size > 0;
  };

  // ---- start --------------------------------------------------------------------------------------------
  const rgdInformer = defaultCreateInformer(cluster, resources.rgd, informerOptions);
  const rgdSubscription = rgdInformer.on((event) => {
    const name = event.object.metadata.name;
    const id = idOf(resources.rgd, name);
    const mine = written.get(id);
    if (event.type === 'DELETED') written.delete(id);
    else if (mine) {
      // Our own status write coming back (or an older version): nothing new to react to.
      if (!newerThan(event.object.metadata.resourceVersion, mine.metadata.resourceVersion)) {
        if (event.object.metadata.resourceVersion === mine.metadata.resourceVersion) written.delete(id);
        return;
      }
      written.delete(id);
    }
    dirtyRgds.add(name);
    unsettledRgds.add(name);
    wake();
  });
  pendingStarts += 1;
  rgdInformer
    .start()
    .catch((err) => {
      if (!stopped) logger.warn({ err: String(err) }, 'kro simulator: RGD informer did not start');
    })
    .finally(() => {
      rgdInformerStarted = true;
      pendingStarts -= 1;
      notifyIfQuiet();
    });

  return {
    async settle() {
      for (;;) {
        await tick(); // lets watch events already on their way land first
        if (quiet()) return;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },

    async settleRgds() {
      for (;;) {
        await tick();
        if (rgdsQuiet()) return;
        await new Promise<void>((resolve) => rgdWaiters.push(resolve));
      }
    },

    async failResource(ref, namespace, name, resourceId) {
      await cluster.patch(ref, name, { metadata: { annotations: { [SIMULATE_FAILURE_ANNOTATION]: resourceId } } }, { namespace });
    },

    async close() {
      if (stopped) return;
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
      rgdSubscription.close();
      rgdInformer.stop();
      for (const kind of kinds.values()) {
        kind.subscription.close();
        kind.informer.stop();
      }
      kinds.clear();
      inFlight.clear();
      written.clear();
      unsettledRgds.clear();
      idle = true;
      rgdInformerStarted = true;
      notifyIfQuiet();
    },
  };
}

/** `namespace/name` or `name` (objectKey) back to informer.get's arguments. */
function nameAndNamespace(key: string): [string, string | undefined] {
  const slash = key.indexOf('/');
  return slash < 0 ? [key, undefined] : [key.slice(slash + 1), key.slice(0, slash)];
}
