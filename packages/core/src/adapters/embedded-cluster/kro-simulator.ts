import { isPorticoError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { refKey, resources, type KubeObject, type ResourceRef } from '../../ports/cluster.js';
import { builtinRef, instanceRefOf } from './discovery.js';
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
import type { ObjectStore } from './object-store.js';
import { analyseResources } from './resource-graph.js';

export const KRO_FINALIZER = 'kro.run/finalizer';
export const SIMULATE_FAILURE_ANNOTATION = 'portico.dev/simulate-failure';

/**
 * A stand-in for the kro controller, so the embedded cluster behaves like a cluster with kro installed:
 * RGDs become Active (or Inactive on a bad graph), instances walk their resources in dependency order, one
 * resource per step, and can be made to fail or be deleted. It is level-triggered: every step compares what
 * is stored with what kro would want, so it picks up correctly after a restart.
 */
export interface KroSimulator {
  /** Resolves when no RGD or instance has pending work. */
  settle(): Promise<void>;
  /** Makes the instance's walk fail at `resourceId` (sets the simulate-failure annotation). */
  failResource(ref: ResourceRef, namespace: string | undefined, name: string, resourceId: string): Promise<void>;
  close(): Promise<void>;
}

interface ManagedKind {
  ref: ResourceRef;
  order: string[];
}

export function createKroSimulator(opts: { store: ObjectStore; stepMs: number; now: () => Date; logger: Logger }): KroSimulator {
  const { store, stepMs, logger } = opts;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let idle = true;
  let dirty = false;
  let stopped = false;
  let settleWaiters: (() => void)[] = [];

  const now = () => opts.now().toISOString().replace(/\.\d{3}Z$/, 'Z');

  /** Writes through the store's patch path (events, resourceVersions); a concurrent change just means retry. */
  const write = async (ref: ResourceRef, obj: KubeObject, patch: Record<string, unknown>) => {
    try {
      await store.patch(ref, obj.metadata.name, patch, { namespace: obj.metadata.namespace, resourceVersion: obj.metadata.resourceVersion });
    } catch (err) {
      if (isPorticoError(err) && (err.code === 'CONFLICT' || err.code === 'NOT_FOUND')) return;
      throw err;
    }
  };

  const statusPatch = (obj: KubeObject, state: string, conditions: ConditionSpec[]) => ({
    state,
    conditions: withTransitions(obj.status?.conditions, conditions, obj.metadata.generation ?? 1, now()),
  });

  /** Returns true when it wrote something (another step is needed to observe the result). */
  const reconcileRgd = async (rgd: KubeObject, managed: Map<string, ManagedKind>): Promise<boolean> => {
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
      if (!managed.has(refKey(instanceRef))) managed.set(refKey(instanceRef), { ref: instanceRef, order: graph.order });
    }
    if (sameStatus(rgd.status, desired)) return false;
    // The whole status is replaced: null out keys the new state does not have (e.g. topologicalOrder).
    const cleared = Object.fromEntries(Object.keys(rgd.status ?? {}).map((k) => [k, null]));
    await write(resources.rgd, rgd, { status: { ...cleared, ...desired } });
    return true;
  };

  const reconcileInstance = async ({ ref, order }: ManagedKind, inst: KubeObject): Promise<boolean> => {
    const total = order.length;
    const finalizers = inst.metadata.finalizers ?? [];
    const setStatus = (state: string, conditions: ConditionSpec[], extra: Record<string, unknown> = {}) =>
      write(ref, inst, { ...extra, status: statusPatch(inst, state, conditions) }).then(() => true);
    const restartWalk = () => setStatus('IN_PROGRESS', progressingConditions(0, total, order[0]));

    if (inst.metadata.deletionTimestamp) {
      if (!finalizers.includes(KRO_FINALIZER)) return false;
      if (inst.status?.state !== 'DELETING') return setStatus('DELETING', deletingConditions(inst.status?.conditions));
      const rest = finalizers.filter((f) => f !== KRO_FINALIZER);
      await write(ref, inst, { metadata: { finalizers: rest.length ? rest : null } });
      return true;
    }
    if (!finalizers.includes(KRO_FINALIZER)) {
      return setStatus('IN_PROGRESS', progressingConditions(0, total, order[0]), { metadata: { finalizers: [...finalizers, KRO_FINALIZER] } });
    }
    if (observedGenerationOf(inst.status?.conditions) !== (inst.metadata.generation ?? 1)) return restartWalk();

    const failing = inst.metadata.annotations?.[SIMULATE_FAILURE_ANNOTATION];
    const failIndex = failing ? order.indexOf(failing) : -1;
    const state = inst.status?.state;
    if (state === 'ERROR') return failIndex >= 0 ? false : restartWalk(); // annotation removed: kro retries
    const ready = Math.min(readyCountOf(inst.status?.conditions), total);
    if (failIndex >= 0 && ready >= failIndex) return setStatus('ERROR', failedConditions(failIndex, total, failing!));
    if (state === 'ACTIVE') return false;
    if (state !== 'IN_PROGRESS') return restartWalk();
    const nowReady = ready + 1;
    if (nowReady >= total) return setStatus('ACTIVE', activeConditions(total));
    return setStatus('IN_PROGRESS', progressingConditions(nowReady, total, order[nowReady]));
  };

  /** Instances whose RGD is gone or invalid would otherwise keep our finalizer forever. */
  const releaseOrphans = async (managed: Map<string, ManagedKind>): Promise<boolean> => {
    let wrote = false;
    for (const ref of store.refs()) {
      if (managed.has(refKey(ref)) || builtinRef(ref.group, ref.version, ref.kind)) continue;
      for (const obj of store.all(ref)) {
        const finalizers = obj.metadata.finalizers ?? [];
        if (!obj.metadata.deletionTimestamp || !finalizers.includes(KRO_FINALIZER)) continue;
        const rest = finalizers.filter((f) => f !== KRO_FINALIZER);
        await write(ref, obj, { metadata: { finalizers: rest.length ? rest : null } });
        wrote = true;
      }
    }
    return wrote;
  };

  const step = async (): Promise<boolean> => {
    let busy = false;
    const managed = new Map<string, ManagedKind>();
    for (const rgd of store.all(resources.rgd)) {
      if (rgd.metadata.deletionTimestamp) continue;
      busy = (await reconcileRgd(rgd, managed)) || busy;
    }
    for (const kind of managed.values()) {
      for (const inst of store.all(kind.ref)) busy = (await reconcileInstance(kind, inst)) || busy;
    }
    return (await releaseOrphans(managed)) || busy;
  };

  /** From idle, react at once (kro reacts to watch events); while walking, move one step per stepMs. */
  const schedule = (delayMs: number) => {
    idle = false;
    timer = setTimeout(run, delayMs);
    timer.unref();
  };

  const goIdle = () => {
    idle = true;
    const waiters = settleWaiters;
    settleWaiters = [];
    for (const resolve of waiters) resolve();
  };

  function run() {
    timer = undefined;
    dirty = false;
    running = step()
      .catch((err) => {
        if (!stopped) logger.warn({ err: String(err) }, 'kro simulator: step failed, retrying');
        return true;
      })
      .then((busy) => {
        running = undefined;
        if (stopped) return;
        if (busy || dirty) schedule(stepMs);
        else goIdle();
      });
  }

  const unsubscribe = store.onChange(() => {
    dirty = true;
    if (idle && !stopped) schedule(0);
  });
  schedule(0);

  return {
    settle() {
      if (stopped || idle) return Promise.resolve();
      return new Promise((resolve) => settleWaiters.push(resolve));
    },

    async failResource(ref, namespace, name, resourceId) {
      await store.patch(ref, name, { metadata: { annotations: { [SIMULATE_FAILURE_ANNOTATION]: resourceId } } }, { namespace });
    },

    async close() {
      stopped = true;
      unsubscribe();
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
      goIdle();
    },
  };
}
