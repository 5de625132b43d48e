import { isPorticoError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Cluster, Disposable } from '../ports/cluster.js';
import type { InstanceIndex } from './instance-index.js';
import { readTimeline, statusEntry, timelineAnnotation, withEntry } from './timeline.js';

/**
 * Appends a status entry to an instance's timeline whenever the index shows a state other than the last one
 * recorded. Level-triggered and guarded by the resourceVersion it read: after a restart it records what changed
 * meanwhile, and when several replicas race, one write wins and the others see the entry already there. A lost
 * race needs no retry: the write that won is a newer version, whose event brings the instance back here.
 */
export function recordStatusChanges(deps: { cluster: Cluster; index: InstanceIndex; logger: Logger; now?: () => Date }): Disposable {
  const now = deps.now ?? (() => new Date());
  return deps.index.onChange((change) => {
    if (change.action === 'delete') return;
    const { object, ref, project } = change.current;
    if (!project) return; // not created through Portico: not ours to annotate
    const entries = readTimeline(object);
    const entry = statusEntry(object, entries, now().toISOString().replace(/\.\d{3}Z$/, 'Z'));
    if (!entry) return;
    const patch = { metadata: { annotations: { [timelineAnnotation]: withEntry(entries, entry) } } };
    deps.cluster
      .patch(ref, object.metadata.name, patch, { namespace: object.metadata.namespace, resourceVersion: object.metadata.resourceVersion })
      .catch((err) => {
        if (isPorticoError(err) && (err.code === 'CONFLICT' || err.code === 'NOT_FOUND')) return;
        deps.logger.warn({ err, instance: change.current.id }, 'could not record a status change in the instance timeline');
      });
  });
}
