import type { InstanceChildren, InstanceEventList, InstanceTimeline } from '@portico/api';
import type { CallOptions } from '../options.js';
import type { Transport } from '../transport.js';
import type { InstanceRef } from './instances.js';

/** What an instance page shows besides the instance (contract §11). */
export interface InstanceHistoryApi {
  /** Kubernetes Events of the instance and its child resources, oldest first. */
  events(ref: InstanceRef, opts?: CallOptions): Promise<InstanceEventList>;
  /** The recorded history: created, updates, status changes, deletion; oldest first. */
  timeline(ref: InstanceRef, opts?: CallOptions): Promise<InstanceTimeline>;
  /** The resources kro manages for the instance, by `spec.resources` id. */
  children(ref: InstanceRef, opts?: CallOptions): Promise<InstanceChildren>;
}

export const instanceHistoryApi = (call: Transport): InstanceHistoryApi => {
  // Namespaced kinds on /namespaces/{ns}/…, cluster-scoped ones (no namespace) on /instances/_/….
  const params = (ref: InstanceRef) => ({ params: { kind: ref.kind, name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) } });
  return {
    events: (ref, opts) => (ref.namespace ? call('namespacedInstanceEvents', params(ref), opts) : call('clusterInstanceEvents', params(ref), opts)),
    timeline: (ref, opts) => (ref.namespace ? call('namespacedInstanceTimeline', params(ref), opts) : call('clusterInstanceTimeline', params(ref), opts)),
    children: (ref, opts) => (ref.namespace ? call('namespacedInstanceChildren', params(ref), opts) : call('clusterInstanceChildren', params(ref), opts)),
  };
};
