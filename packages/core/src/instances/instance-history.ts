import type * as api from '@portico/api';
import type { Catalog } from '../catalog/index.js';
import { resources, type Cluster, type KubeObject } from '../ports/cluster.js';
import { childrenOf } from './children.js';
import type { IndexedInstance } from './instance-index.js';
import { readTimeline } from './timeline.js';

/** Events answered per instance: the newest, so an object that flaps for days still answers quickly. */
export const maxInstanceEvents = 500;

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** core/v1 Event → the wire shape of contract §11 (older writers leave fields out; newer ones use eventTime/series). */
function toInstanceEvent(e: KubeObject): api.InstanceEvent {
  const involved = (e.involvedObject ?? {}) as Record<string, unknown>;
  const source = (e.source ?? {}) as Record<string, unknown>;
  const series = (e.series ?? {}) as Record<string, unknown>;
  const first = str(e.firstTimestamp) || str(e.eventTime) || str(e.metadata.creationTimestamp);
  const last = str(e.lastTimestamp) || str(series.lastObservedTime) || first;
  const count = typeof e.count === 'number' ? e.count : typeof series.count === 'number' ? series.count : 1;
  return {
    type: e.type === 'Warning' ? 'Warning' : 'Normal',
    reason: str(e.reason),
    message: str(e.message),
    source: str(source.component) || str(e.reportingComponent),
    firstTimestamp: first,
    lastTimestamp: last,
    count,
    involvedObject: { kind: str(involved.kind), name: str(involved.name), namespace: str(involved.namespace) },
  };
}

/**
 * What a client shows on an instance's page besides the instance itself: its Kubernetes Events (and those of its
 * child resources), its recorded timeline and its child resources. The caller has been authorized already.
 */
export function createInstanceHistory(deps: { cluster: Cluster; catalog: Catalog }) {
  const { cluster, catalog } = deps;

  const children = (item: IndexedInstance): api.InstanceChildren => {
    const entry = catalog.entry(item.instance.rgdName);
    return entry ? childrenOf(entry, item) : { items: [], totalCount: 0 };
  };

  return {
    children,

    timeline(item: IndexedInstance): api.InstanceTimeline {
      return { items: [...readTimeline(item.object)] };
    },

    /** One field-selected list per involved object: the cost follows the instance's size, not the namespace's. */
    async events(item: IndexedInstance): Promise<api.InstanceEventList> {
      const { object } = item;
      // Events of cluster-scoped objects live in `default`, as the Kubernetes event recorder puts them.
      const involved = [
        { kind: object.kind, name: object.metadata.name, namespace: object.metadata.namespace || 'default' },
        ...children(item).items.filter((c) => c.kind).map((c) => ({ kind: c.kind, name: c.name, namespace: c.namespace || 'default' })),
      ];
      const lists = await Promise.all(
        involved.map((o) =>
          cluster.list(resources.event, { namespace: o.namespace, fieldSelector: `involvedObject.kind=${o.kind},involvedObject.name=${o.name}` }),
        ),
      );
      // Event times have whole seconds; within one, the store's write order (resourceVersion) tells which came first.
      const items = lists
        .flatMap((l) => l.items)
        .map((e) => ({ event: toInstanceEvent(e), order: Number(e.metadata.resourceVersion) || 0 }))
        .sort((a, b) => Date.parse(a.event.lastTimestamp) - Date.parse(b.event.lastTimestamp) || a.order - b.order)
        .map((e) => e.event);
      return { items: items.slice(-maxInstanceEvents) };
    },
  };
}
