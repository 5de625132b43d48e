import type * as api from '@portico/api';
import { childIdentity, type CatalogEntry } from '../catalog/index.js';
import type { IndexedInstance } from './instance-index.js';
import { readyResourcesOf } from './instance-events.js';

/**
 * The resources kro manages for an instance, one per `spec.resources` id, in the order kro creates them (the
 * RGD's `status.topologicalOrder`). kro reports progress as "k of N resources ready" and walks that order, so
 * the first k are ready, the next one is the one being worked on (or the one that failed), the rest wait.
 */
export function childrenOf(entry: CatalogEntry, item: IndexedInstance): api.InstanceChildren {
  const { instance, object } = item;
  const byId = new Map(entry.graph.map((r) => [r.id, r]));
  const known = entry.topologicalOrder.filter((id) => byId.has(id));
  const order = known.length === byId.size ? known : entry.graph.map((r) => r.id);
  const state = instance.status.state;
  const ready = readyResourcesOf(instance, order.length);
  const readyCondition = instance.conditions.find((c) => c.type === 'Ready');
  const deleting = state === 'DELETING' || Boolean(object.metadata.deletionTimestamp);

  const items = order.map((id, position): api.InstanceChild => {
    const resource = byId.get(id)!;
    const { name, namespace } = childIdentity(resource, object);
    const base = { id, apiVersion: resource.apiVersion, kind: resource.kind, name, namespace };
    if (deleting) return { ...base, ready: false, status: 'Deleting', message: 'deleting managed resources' };
    if (position < ready) return { ...base, ready: true, status: 'Ready' };
    if (position === ready && state === 'ERROR') {
      return { ...base, ready: false, status: 'Failed', ...(readyCondition?.message ? { message: readyCondition.message } : {}) };
    }
    if (position === ready && state === 'IN_PROGRESS') return { ...base, ready: false, status: 'InProgress', message: 'being created' };
    return { ...base, ready: false, status: 'Pending', message: position === ready ? 'not reconciled yet' : 'waiting for the resources before it' };
  });
  return { items, totalCount: items.length };
}
