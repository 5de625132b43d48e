import type { Logger } from '../logger.js';
import type { Disposable } from '../ports/cluster.js';
import { markDeleted, reconcile, sameRecordedState } from './history-entries.js';
import { historyRetentionMs, type HistoryDoc, type HistoryStore } from './history-store.js';
import type { IndexedInstance, InstanceIndex } from './index-types.js';
import { keyOf } from './instance-resource.js';

const stamp = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');
/** How often expired histories are looked for; any replica may remove one, removing twice is harmless. */
const sweepEveryMs = 6 * 60 * 60 * 1000;

export interface HistoryRecorder extends Disposable {
  /** Brings an instance's history up to date with the object now (a read after a restart sees what changed meanwhile). */
  catchUp(item: IndexedInstance): Promise<HistoryDoc | undefined>;
}

/**
 * Records what happens to the instances Portico created: their creation, spec changes (the generation moves),
 * changes of health and deletion, in each one's history document. Every replica follows the same index; the
 * store's version guard and the events' ids make each event land once.
 *
 * Changes are taken at the end of the event-loop turn, the newest per instance, one write in flight per
 * instance: a burst of status writes would otherwise only collect conflicts. Being level-triggered (the object
 * is compared with the document), a state that came and went while nothing was written is not recorded, and the
 * next change after a restart records what changed meanwhile.
 */
export function recordHistory(deps: {
  store: HistoryStore;
  index: InstanceIndex;
  logger: Logger;
  /** The RGD's newest revision number, stamped on a history when it starts. */
  revisionOf: (rgdName: string) => number;
  now?: () => Date;
}): HistoryRecorder {
  const { store, logger } = deps;
  const stamped = (doc: HistoryDoc | undefined) => (doc && doc.rgdRevision === undefined ? { ...doc, rgdRevision: deps.revisionOf(doc.rgdName) } : doc);
  const now = deps.now ?? (() => new Date());
  const pending = new Map<string, { item: IndexedInstance; gone: boolean }>();
  const inFlight = new Map<string, Promise<unknown>>();
  // Instances whose history this recorder has brought up to date with the index's view since it started, the last
  // write having gone through: a change of theirs that moves nothing the history records needs no read of it.
  const upToDate = new Set<string>();
  let scheduled = false;
  let closed = false;

  const write = (item: IndexedInstance, gone: boolean) => {
    const key = keyOf(item.object);
    const at = stamp(now());
    return gone
      ? store.update(key, (doc) => markDeleted(doc, key, item.instance, at, { gone: true }))
      : store.update(key, (doc) => stamped(reconcile(doc, key, item.instance, item.object, at)));
  };

  function flush() {
    scheduled = false;
    for (const [id, { item, gone }] of pending) {
      if (inFlight.has(id)) continue; // taken when its write comes back
      pending.delete(id);
      const running = write(item, gone)
        .then(
          () => void (gone ? upToDate.delete(id) : upToDate.add(id)),
          (err) => {
            upToDate.delete(id); // the next change looks again, whatever it is
            logger.warn({ err, instance: id }, 'could not record a change in the instance history');
          },
        )
        .finally(() => {
          inFlight.delete(id);
          if (pending.has(id)) schedule();
        });
      inFlight.set(id, running);
    }
  }

  function schedule() {
    if (scheduled || closed) return;
    scheduled = true;
    setImmediate(flush);
  }

  const subscription = deps.index.onChange((change) => {
    const item = change.current;
    if (!item.project) return; // not created through Portico: not ours to record
    if (change.action === 'delete') upToDate.delete(item.id);
    // Most changes are kro's status writes, which only move the resourceVersion: the index's previous view says so.
    else if (change.previous && upToDate.has(item.id) && sameRecordedState(change.previous, item)) return;
    // A deletion is never replaced by an older update still waiting.
    if (change.action === 'delete' || !pending.get(item.id)?.gone) pending.set(item.id, { item, gone: change.action === 'delete' });
    schedule();
  });

  const sweep = () =>
    store.sweep(now()).then(
      (removed) => removed > 0 && logger.info({ removed, retentionDays: historyRetentionMs / 86_400_000 }, 'removed expired instance histories'),
      (err) => logger.warn({ err }, 'could not remove expired instance histories'),
    );
  const firstSweep = setTimeout(sweep, 5_000);
  const sweeps = setInterval(sweep, sweepEveryMs);
  firstSweep.unref?.();
  sweeps.unref?.();

  return {
    async catchUp(item) {
      await inFlight.get(item.id);
      return write(item, false);
    },
    close() {
      closed = true;
      pending.clear();
      upToDate.clear();
      clearTimeout(firstSweep);
      clearInterval(sweeps);
      subscription.close();
    },
  };
}
