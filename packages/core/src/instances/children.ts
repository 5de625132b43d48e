import type * as api from '@portico/api';
import { childIdentity, type CatalogEntry } from '../catalog/index.js';
import type { ResourceDescription } from '../catalog/resource-descriptions.js';
import type { Cluster, KubeObject, ResourceRef } from '../ports/cluster.js';
import { childHealth, hasHealth, worstHealth } from './child-health.js';
import type { IndexedInstance } from './instance-index.js';
import { readyResourcesOf } from './instance-events.js';

/** Where kro is with one resource, from the instance's own progress (`k/N resources ready`, state, deletion). */
type Progress = 'Ready' | 'InProgress' | 'Failed' | 'Pending' | 'Deleting';
const healthOfProgress: Record<Progress, api.ChildHealth> = { Ready: 'Healthy', InProgress: 'Progressing', Failed: 'Unhealthy', Pending: 'Progressing', Deleting: 'Progressing' };

/**
 * kro reports progress as "k of N resources ready" and walks its creation order (the RGD's
 * `status.topologicalOrder`), so the first k are ready, the next one is being worked on (or failed), the rest wait.
 */
function progressById(entry: CatalogEntry, item: IndexedInstance): Map<string, Progress> {
  const { instance, object } = item;
  const ids = new Set(entry.graph.map((r) => r.id));
  const known = entry.topologicalOrder.filter((id) => ids.has(id));
  const order = known.length === ids.size ? known : entry.graph.map((r) => r.id);
  const state = instance.status.state;
  const ready = readyResourcesOf(instance, order.length);
  const deleting = state === 'DELETING' || Boolean(object.metadata.deletionTimestamp);
  return new Map(
    order.map((id, position): [string, Progress] => {
      if (deleting) return [id, 'Deleting'];
      if (position < ready) return [id, 'Ready'];
      if (position === ready && state === 'ERROR') return [id, 'Failed'];
      if (position === ready && state === 'IN_PROGRESS') return [id, 'InProgress'];
      return [id, 'Pending'];
    }),
  );
}

export interface ChildLookup {
  /** The resource serving `apiVersion`/`kind`, undefined when the cluster does not serve it (or cannot be asked). */
  refOf(apiVersion: string, kind: string): Promise<ResourceRef | undefined>;
  cluster: Pick<Cluster, 'get'>;
}

/** The object kro made for a resource, when the cluster has it and Portico may read it. */
async function liveChild(lookup: ChildLookup, resource: ResourceDescription, name: string, namespace: string): Promise<KubeObject | undefined> {
  if (!resource.kind || !resource.apiVersion || resource.isCollection) return undefined;
  const ref = await lookup.refOf(resource.apiVersion, resource.kind);
  if (!ref) return undefined;
  return lookup.cluster.get(ref, name, ref.namespaced ? namespace : undefined).catch(() => undefined);
}

/**
 * Children grouped by resource id, in `order` (the RGD's `spec.resources` order); a child whose id is not among
 * them goes to group `unknown`, last. A group's health is the worst of its children that have one, its
 * `readyCount` the Healthy ones.
 */
export function groupChildren(children: api.ChildResource[], order: readonly Pick<ResourceDescription, 'id' | 'kind' | 'apiVersion'>[]): api.ChildGroup[] {
  const known = new Set(order.map((r) => r.id));
  const heads = [...order, ...(children.some((c) => !known.has(c.nodeId)) ? [{ id: 'unknown', kind: '', apiVersion: '' }] : [])];
  return heads.map((head) => {
    const resources = children.filter((c) => (head.id === 'unknown' && !known.has(c.nodeId)) || c.nodeId === head.id);
    return {
      nodeId: head.id,
      kind: head.kind || resources[0]?.kind || '',
      apiVersion: head.apiVersion || resources[0]?.apiVersion || '',
      count: resources.length,
      readyCount: resources.filter((c) => c.health === 'Healthy').length,
      health: worstHealth(resources.map((c) => c.health)),
      resources,
    };
  });
}

/**
 * The resources kro manages for an instance, one group per `spec.resources` id in the RGD's order. Each resource is
 * the object itself when the cluster has it (its health from its status), else what the instance's progress says
 * about it; kinds without health (ConfigMap, Service, RBAC) are `None`.
 */
export async function childrenOf(lookup: ChildLookup, entry: CatalogEntry | undefined, item: IndexedInstance): Promise<api.InstanceChildren> {
  const { instance, object } = item;
  const graph = entry?.graph ?? [];
  const progress = entry ? progressById(entry, item) : new Map<string, Progress>();
  const children = await Promise.all(
    graph.map(async (resource): Promise<api.ChildResource> => {
      const { name, namespace } = childIdentity(resource, object);
      const live = await liveChild(lookup, resource, name, namespace);
      const step = progress.get(resource.id) ?? 'Pending';
      const health = live ? childHealth(live) : hasHealth(resource.kind) ? healthOfProgress[step] : 'None';
      const phase = typeof live?.status?.phase === 'string' ? (live.status.phase as string) : undefined;
      return {
        name,
        namespace: live ? (live.metadata.namespace ?? '') : namespace,
        kind: resource.kind,
        apiVersion: resource.apiVersion,
        nodeId: resource.id,
        health,
        ...(phase ? { phase } : {}),
        status: live ? (health === 'None' ? 'Exists' : health) : step,
        createdAt: live?.metadata.creationTimestamp ?? instance.createdAt,
      };
    }),
  );
  return {
    instanceName: instance.name,
    instanceNamespace: instance.namespace,
    instanceKind: instance.kind,
    totalCount: children.length,
    groups: groupChildren(children, graph),
    clusterUnreachable: false,
    unreachableClusters: [],
  };
}
