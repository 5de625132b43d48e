import { createInformer, type InformerOptions } from '../../../cluster/informer.js';
import type { Informer } from '../../../cluster/informer-types.js';
import { createLogger, type Logger } from '../../../logger.js';
import { resources, type Cluster, type ResourceRef } from '../../../ports/cluster.js';
import { createInstanceKinds } from './instance-kinds.js';
import { createStepLoop, createWaiters } from './kro-loop.js';
import { SIMULATE_FAILURE_ANNOTATION } from './kro-markers.js';
import { createKroWrites } from './kro-writes.js';
import { reconcileInstance } from './reconcile-instance.js';
import { reconcileRgd } from './reconcile-rgd.js';

export { KRO_FINALIZER, SIMULATE_FAILURE_ANNOTATION } from './kro-markers.js';

/**
 * A stand-in for the kro controller, working only through the Cluster port (informers to read, merge patches to
 * write, status included), so it runs inside the embedded cluster and beside Portico against a Kubernetes API
 * alike. RGDs become Active (or Inactive on a bad graph), instances walk their resources in dependency order,
 * one resource per step, and can be made to fail or be deleted. It is level-triggered: every reconcile compares
 * the object with what kro would want, so it picks up correctly after a restart.
 *
 * Split by phase: scheduling (kro-loop), reads and writes (kro-writes), instance kinds (instance-kinds), the
 * reconcilers (reconcile-rgd, reconcile-instance); this file wires them and takes one step.
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

/** Instance reconciles (one write each at most) that run at the same time within a step. */
const INSTANCE_WRITES_IN_FLIGHT = 64;

export function createKroController(cluster: Cluster, opts: KroControllerOptions = {}): KroController {
  const logger = (opts.logger ?? createLogger('silent')).child({ component: 'kro-simulator' });
  const clock = opts.now ?? (() => new Date());
  const now = () => clock().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const informerOptions = { logger, ...opts.informer };
  const writes = createKroWrites(cluster, logger, now);

  /** RGDs to reconcile on the next step. */
  const dirtyRgds = new Set<string>();
  /** RGDs changed by someone else and not reconciled since (a second look after our own write does not count). */
  const unsettledRgds = new Set<string>();
  let pendingStarts = 0;
  let rgdInformerStarted = false;

  const loop = createStepLoop(() => step(), { stepMs: opts.stepMs ?? 300, logger, onIdle: () => notifyIfQuiet() });
  const quiet = () => loop.stopped() || (loop.idle() && pendingStarts === 0);
  const settled = createWaiters(quiet);
  const rgdsSettled = createWaiters(() => quiet() || (rgdInformerStarted && unsettledRgds.size === 0));
  const notifyIfQuiet = () => {
    rgdsSettled.notify();
    settled.notify();
  };

  const startInformer = (informer: Informer, failure: string, fields: Record<string, unknown> = {}, started = () => {}) => {
    pendingStarts += 1;
    informer
      .start()
      .catch((err) => {
        if (!loop.stopped()) logger.warn({ err: String(err), ...fields }, failure);
      })
      .finally(() => {
        started();
        pendingStarts -= 1;
        notifyIfQuiet();
      });
  };

  const rgdInformer = createInformer(cluster, resources.rgd, informerOptions);
  const kinds = createInstanceKinds({
    cluster,
    informerOptions,
    writes,
    rgdNames: () => rgdInformer.list().map((rgd) => rgd.metadata.name),
    dirtyRgd: (name) => dirtyRgds.add(name),
    wake: () => loop.wake(),
    startInformer,
  });
  const { inFlight } = kinds;

  /**
   * One step: the RGDs that changed, then every in-flight instance moves by at most one write. A failed write
   * (API unreachable) ends the step and leaves the object pending, so the next step tries again.
   */
  const step = async (): Promise<boolean> => {
    if (loop.stopped()) return false;
    // RGDs are independent too, and hold readiness: their writes go out together.
    await Promise.all(
      [...dirtyRgds].map(async (name) => {
        dirtyRgds.delete(name);
        try {
          if (await reconcileRgd(name, { rgdInformer, writes, kinds })) dirtyRgds.add(name);
          unsettledRgds.delete(name);
        } catch (err) {
          dirtyRgds.add(name);
          throw err;
        }
      }),
    );
    rgdsSettled.notify();
    // Instances are independent: a batch of writes in flight at once lets the API server (or the embedded
    // store's journal) take them together instead of one round trip each.
    const work = [...inFlight];
    for (let i = 0; i < work.length; i += INSTANCE_WRITES_IN_FLIGHT) {
      if (loop.stopped()) return false;
      await Promise.all(
        work.slice(i, i + INSTANCE_WRITES_IN_FLIGHT).map(async ([id, item]) => {
          inFlight.delete(id); // an event during the reconcile puts it back
          try {
            const inst = writes.current(item.kind.ref, item.kind.informer, item.key);
            if (inst && (await reconcileInstance(item.kind, inst, writes))) inFlight.set(id, item);
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
  const rgdSubscription = rgdInformer.on((event) => {
    const name = event.object.metadata.name;
    if (event.type === 'DELETED') writes.forget(resources.rgd, name);
    else if (!writes.isNews(resources.rgd, name, event)) return; // our own status write coming back (or an older one)
    dirtyRgds.add(name);
    unsettledRgds.add(name);
    loop.wake();
  });
  startInformer(rgdInformer, 'kro simulator: RGD informer did not start', {}, () => {
    rgdInformerStarted = true;
  });

  return {
    settle: () => settled.wait(),
    settleRgds: () => rgdsSettled.wait(),

    async failResource(ref, namespace, name, resourceId) {
      await cluster.patch(ref, name, { metadata: { annotations: { [SIMULATE_FAILURE_ANNOTATION]: resourceId } } }, { namespace });
    },

    async close() {
      if (loop.stopped()) return;
      await loop.stop();
      rgdSubscription.close();
      rgdInformer.stop();
      kinds.close();
      writes.clear();
      unsettledRgds.clear();
      rgdInformerStarted = true;
      notifyIfQuiet();
    },
  };
}
