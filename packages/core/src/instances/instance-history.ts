import type * as api from '@portico/api';
import { childIdentity, type Catalog } from '../catalog/index.js';
import { resources, type Cluster, type KubeObject, type ResourceRef } from '../ports/cluster.js';
import { childrenOf } from './children.js';
import { createdEvent, freshDoc } from './history-entries.js';
import { historyId, type HistoryDoc } from './history-store.js';
import type { InstanceKey } from './instance-key.js';
import type { IndexedInstance } from './instance-index.js';
import { historyCsv, timelineOf } from './history-timeline.js';

/** Events answered per instance: the newest, so an object that flaps for days still answers quickly. */
export const maxInstanceEvents = 500;

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** core/v1 Event → the wire shape of contract §11.2 (older writers leave fields out; newer ones use eventTime/series). */
function toInstanceEvent(e: KubeObject): api.InstanceEvent {
  const involved = (e.involvedObject ?? {}) as Record<string, unknown>;
  const source = (e.source ?? {}) as Record<string, unknown>;
  const series = (e.series ?? {}) as Record<string, unknown>;
  const first = str(e.firstTimestamp) || str(e.eventTime) || str(e.metadata.creationTimestamp);
  const last = str(e.lastTimestamp) || str(series.lastObservedTime) || first;
  const count = typeof e.count === 'number' ? e.count : typeof series.count === 'number' ? series.count : 1;
  return {
    lastSeen: last,
    type: e.type === 'Warning' ? 'Warning' : 'Normal',
    reason: str(e.reason),
    object: `${str(involved.kind)}/${str(involved.name)}`,
    message: str(e.message),
    count,
    firstSeen: first,
    source: str(source.component) || str(e.reportingComponent),
  };
}

/**
 * What an instance page reads besides the instance: its resources, Kubernetes Events, timeline and history. The
 * caller has been authorized already; a deleted instance is read through its history document alone.
 */
export interface HistorySubject {
  key: InstanceKey;
  /** The instance, while it exists. */
  item?: IndexedInstance;
  /** Its recorded history, when there is one. */
  doc?: HistoryDoc;
}

export function createInstanceHistory(deps: { cluster: Cluster; catalog: Catalog }) {
  const { cluster, catalog } = deps;
  // The cluster adapters keep discovery's answers (and look a missing kind up again soon): no cache of its own here.
  const refOf = (apiVersion: string, kind: string): Promise<ResourceRef | undefined> => {
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
    return cluster.discover(group!, version!, kind).catch(() => undefined);
  };

  /** The Events of the instance and of each of its child resources, one field-selected list per object. */
  async function kubernetesEvents(subject: HistorySubject): Promise<api.InstanceEvent[]> {
    const { key, item } = subject;
    // Events of cluster-scoped objects live in `default`, as the Kubernetes event recorder puts them.
    const involved = [{ kind: key.kind, name: key.name, namespace: key.namespace || 'default' }];
    const entry = item && catalog.entry(item.instance.rgdName);
    for (const resource of entry?.graph ?? []) {
      if (!resource.kind) continue;
      const { name, namespace } = childIdentity(resource, item!.object);
      involved.push({ kind: resource.kind, name, namespace: namespace || 'default' });
    }
    const lists = await Promise.all(
      involved.map((o) => cluster.list(resources.event, { namespace: o.namespace, fieldSelector: `involvedObject.kind=${o.kind},involvedObject.name=${o.name}` })),
    );
    // Event times have whole seconds; within one, the store's write order (resourceVersion) tells which came last.
    return lists
      .flatMap((l) => l.items)
      .map((e) => ({ event: toInstanceEvent(e), order: Number(e.metadata.resourceVersion) || 0 }))
      .sort((a, b) => Date.parse(b.event.lastSeen) - Date.parse(a.event.lastSeen) || b.order - a.order)
      .slice(0, maxInstanceEvents)
      .map((e) => e.event);
  }

  /** The recorded history, or for an instance nothing was recorded for yet, its creation. */
  const historyDoc = (subject: HistorySubject): HistoryDoc => {
    if (subject.doc) return subject.doc;
    const instance = subject.item!.instance;
    return { ...freshDoc(subject.key, instance), events: [createdEvent(instance)] };
  };

  const history = (subject: HistorySubject): api.InstanceHistory => {
    const doc = historyDoc(subject);
    return {
      instanceId: historyId(subject.key),
      instanceName: doc.instanceName,
      namespace: doc.namespace,
      rgdName: doc.rgdName,
      createdAt: doc.createdAt,
      currentStatus: doc.deletedAt ? 'Deleted' : (doc.events.at(-1)?.status ?? 'Pending'),
      deploymentMode: doc.deploymentMode,
      ...(doc.lastGitCommit ? { lastGitCommit: doc.lastGitCommit } : {}),
      events: doc.events.map((e) => ({ ...e })),
    };
  };

  return {
    async children(item: IndexedInstance): Promise<api.InstanceChildren> {
      return childrenOf({ refOf, cluster }, catalog.entry(item.instance.rgdName), item);
    },

    async events(subject: HistorySubject): Promise<api.InstanceEventList> {
      return { events: await kubernetesEvents(subject) };
    },

    history,

    /**
     * What was recorded (with the RGD's revision changes during the instance's life) unless `source` is
     * `kubernetes`, which answers the Kubernetes Events instead.
     */
    async timeline(subject: HistorySubject, source?: 'deployment' | 'kubernetes'): Promise<api.InstanceTimeline> {
      const { namespace, kind, name } = subject.key;
      if (source === 'kubernetes') return { namespace, kind, name, timeline: timelineOf(undefined, await kubernetesEvents(subject)) };
      const doc = historyDoc(subject);
      return { namespace, kind, name, timeline: timelineOf({ doc, revisions: subject.doc ? catalog.revisionRecords(doc.rgdName) : [] }, []) };
    },

    /** The history as a download: JSON (what `…/history` answers) or CSV. */
    export(subject: HistorySubject, format: 'json' | 'csv'): { filename: string; contentType: string; text: string } {
      const body = history(subject);
      const base = `${subject.key.name}-deployment-history`;
      return format === 'csv'
        ? { filename: `${base}.csv`, contentType: 'text/csv; charset=utf-8', text: historyCsv(body) }
        : { filename: `${base}.json`, contentType: 'application/json; charset=utf-8', text: `${JSON.stringify(body, null, 2)}\n` };
    },
  };
}
export type InstanceHistoryReader = ReturnType<typeof createInstanceHistory>;
