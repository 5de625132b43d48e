import type { InstanceChildren, InstanceEventList, InstanceHistory, InstanceTimeline, TimelineQuery } from '@portico/api';
import { download, type Download } from '../download.js';
import type { CallOptions, ClientOptions } from '../options.js';
import { buildPath } from '../paths.js';
import type { Transport } from '../transport.js';
import type { InstanceRef } from './instances.js';

/** What an instance page shows besides the instance (contract §11.2). */
export interface InstanceHistoryApi {
  /** Kubernetes Events of the instance and its child resources, newest first. */
  events(ref: InstanceRef, opts?: CallOptions): Promise<InstanceEventList>;
  /** The timeline, oldest first: what was recorded, or with `source: 'kubernetes'` the Kubernetes Events. */
  timeline(ref: InstanceRef, query?: TimelineQuery, opts?: CallOptions): Promise<InstanceTimeline>;
  /** The resources kro manages for the instance, grouped by `spec.resources` id, with health. */
  children(ref: InstanceRef, opts?: CallOptions): Promise<InstanceChildren>;
  /** The deployment history; readable for 90 days after the instance is deleted. */
  history(ref: InstanceRef, opts?: CallOptions): Promise<InstanceHistory>;
  /** The history as a download (`<name>-deployment-history.json|csv`), streamed. */
  exportHistory(ref: InstanceRef, format?: 'json' | 'csv', opts?: Omit<CallOptions, 'timeoutMs'>): Promise<Download>;
}

export const instanceHistoryApi = (call: Transport, options: ClientOptions): InstanceHistoryApi => {
  // Namespaced kinds on /namespaces/{ns}/…, cluster-scoped ones (no namespace) on /instances/_/….
  const params = (ref: InstanceRef) => ({ params: { kind: ref.kind, name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) } });
  const base = (ref: InstanceRef) =>
    ref.namespace
      ? buildPath('/api/v1/namespaces/{namespace}/instances/{kind}/{name}', { namespace: ref.namespace, kind: ref.kind, name: ref.name })
      : buildPath('/api/v1/instances/_/{kind}/{name}', { kind: ref.kind, name: ref.name });
  return {
    events: (ref, opts) => (ref.namespace ? call('namespacedInstanceEvents', params(ref), opts) : call('clusterInstanceEvents', params(ref), opts)),
    timeline: (ref, query = {}, opts) =>
      ref.namespace ? call('namespacedInstanceTimeline', { ...params(ref), query }, opts) : call('clusterInstanceTimeline', { ...params(ref), query }, opts),
    children: (ref, opts) => (ref.namespace ? call('namespacedInstanceChildren', params(ref), opts) : call('clusterInstanceChildren', params(ref), opts)),
    history: (ref, opts) => (ref.namespace ? call('namespacedInstanceHistory', params(ref), opts) : call('clusterInstanceHistory', params(ref), opts)),
    exportHistory: (ref, format = 'json', opts = {}) =>
      download(options, `${base(ref)}/history/export`, { format }, opts, `${ref.name}-deployment-history.${format}`),
  };
};
