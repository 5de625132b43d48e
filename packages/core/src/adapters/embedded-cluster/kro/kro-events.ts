import { randomBytes } from 'node:crypto';
import { childIdentity, type ResourceDescription } from '../../../catalog/resource-descriptions.js';
import type { Logger } from '../../../logger.js';
import { apiVersionOf, resources, type Cluster, type KubeObject, type ResourceRef } from '../../../ports/cluster.js';

/** One Kubernetes Event the simulated kro reports, about the instance or one of its resources. */
export interface KroEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  /** Absent: the instance itself. */
  resourceId?: string;
}

/** Event names are `<object>.<random hex>`, as client-go's recorder makes them; the object part made DNS-safe. */
const eventName = (objectName: string) =>
  `${objectName.toLowerCase().replace(/[^a-z0-9.-]+/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 200) || 'object'}.${randomBytes(8).toString('hex')}`;

/**
 * Records Events the way kro's event recorder does: core/v1 Events in the involved object's namespace
 * (`default` for cluster-scoped objects), source `kro`. Best effort, like every Kubernetes event recorder: a
 * failed write is logged and never fails the reconcile.
 */
export function createKroEventRecorder(cluster: Cluster, logger: Logger, now: () => string) {
  return async (ref: ResourceRef, instance: KubeObject, graph: ResourceDescription[], events: KroEvent[]) => {
    for (const event of events) {
      const resource = event.resourceId === undefined ? undefined : graph.find((r) => r.id === event.resourceId);
      const involved = resource
        ? { apiVersion: resource.apiVersion, kind: resource.kind, ...childIdentity(resource, instance) }
        : {
            apiVersion: apiVersionOf(ref),
            kind: ref.kind,
            name: instance.metadata.name,
            namespace: instance.metadata.namespace ?? '',
            uid: instance.metadata.uid,
          };
      const at = now();
      const object: KubeObject = {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: eventName(involved.name), namespace: involved.namespace || 'default' },
        involvedObject: involved,
        reason: event.reason,
        message: event.message,
        type: event.type,
        source: { component: 'kro' },
        reportingComponent: 'kro',
        firstTimestamp: at,
        lastTimestamp: at,
        count: 1,
      };
      try {
        await cluster.create(resources.event, object);
      } catch (err) {
        logger.warn({ err: String(err), reason: event.reason, object: involved.name }, 'kro simulator: could not record an event');
      }
    }
  };
}

const describeChild = (graph: ResourceDescription[], id: string, instance: KubeObject) => {
  const resource = graph.find((r) => r.id === id);
  if (!resource) return `resource "${id}"`;
  return `${resource.kind || 'resource'} "${childIdentity(resource, instance).name}"`;
};

/** Events of one walk step: resource `id` (the `ready`-th of `total`) was created and is ready. */
export function stepEvents(graph: ResourceDescription[], instance: KubeObject, id: string | undefined, ready: number, total: number): KroEvent[] {
  const events: KroEvent[] = [];
  if (id !== undefined) {
    events.push(
      { type: 'Normal', reason: 'ResourceCreated', message: `Created ${describeChild(graph, id, instance)} for resource "${id}"`, resourceId: id },
      { type: 'Normal', reason: 'ResourcesReady', message: `${ready}/${total} resources ready` },
    );
  }
  if (ready >= total) events.push({ type: 'Normal', reason: 'Ready', message: 'All resources are ready' });
  return events;
}

export function failureEvents(graph: ResourceDescription[], instance: KubeObject, id: string): KroEvent[] {
  const what = describeChild(graph, id, instance);
  return [
    { type: 'Warning', reason: 'ResourceFailed', message: `${what} did not become ready`, resourceId: id },
    { type: 'Warning', reason: 'ReconcileError', message: `failed to reconcile resource "${id}": ${what} did not become ready` },
  ];
}
