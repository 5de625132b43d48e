import { isPorticoError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Cluster, Disposable } from '../ports/cluster.js';
import type { IndexedInstance, InstanceIndex } from './instance-index.js';
import { readTimeline, statusEntry, timelineAnnotation, withEntry } from './timeline.js';

/**
 * Appends a status entry to an instance's timeline whenever the index shows a state other than the last one
 * recorded. Level-triggered and guarded by the resourceVersion it read: after a restart it records what changed
 * meanwhile, and when several replicas race, one write wins and the others see the entry already there. A lost
 * race needs no retry: the write that won is a newer version, whose event brings the instance back here.
 *
 * Changes are taken at the end of the event-loop turn, the newest per instance, with one write in flight per
 * instance: under a burst of status writes an instance's versions pile up faster than a write comes back, and
 * writing for each would only collect conflicts (an error built and dropped per change). What is recorded is the
 * state the instance is in when the write goes out, as it always was when a race was lost.
 */
export function recordStatusChanges(deps: { cluster: Cluster; index: InstanceIndex; logger: Logger; now?: () => Date }): Disposable {
  const now = deps.now ?? (() => new Date());
  const pending = new Map<string, IndexedInstance>();
  const inFlight = new Set<string>();
  let scheduled = false;
  let closed = false;

  const schedule = () => {
    if (scheduled || closed) return;
    scheduled = true;
    setImmediate(flush);
  };

  function flush() {
    scheduled = false;
    for (const [id, item] of pending) {
      if (inFlight.has(id)) continue; // taken when its write comes back
      pending.delete(id);
      record(item);
    }
  }

  function record(item: IndexedInstance) {
    const { object, ref, id } = item;
    const entries = readTimeline(object);
    const entry = statusEntry(object, entries, now().toISOString().replace(/\.\d{3}Z$/, 'Z'));
    if (!entry) return;
    const patch = { metadata: { annotations: { [timelineAnnotation]: withEntry(entries, entry) } } };
    inFlight.add(id);
    deps.cluster
      .patch(ref, object.metadata.name, patch, { namespace: object.metadata.namespace, resourceVersion: object.metadata.resourceVersion })
      .catch((err) => {
        if (isPorticoError(err) && (err.code === 'CONFLICT' || err.code === 'NOT_FOUND')) return;
        deps.logger.warn({ err, instance: id }, 'could not record a status change in the instance timeline');
      })
      .finally(() => {
        inFlight.delete(id);
        if (pending.has(id)) schedule();
      });
  }

  const subscription = deps.index.onChange((change) => {
    if (change.action === 'delete') {
      pending.delete(change.current.id);
      return;
    }
    if (!change.current.project) return; // not created through Portico: not ours to annotate
    pending.set(change.current.id, change.current);
    schedule();
  });
  return {
    close() {
      closed = true;
      pending.clear();
      subscription.close();
    },
  };
}
