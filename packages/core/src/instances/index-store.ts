import type { InformerEventType } from '../cluster/informer-types.js';
import { deepFreeze } from '../freeze.js';
import { withLazyJsonText } from '../json-text.js';
import type { KubeObject } from '../ports/cluster.js';
import type { InstanceKey } from '../types.js';
import type { IndexChange, IndexedInstance, InstanceIndex, WatchedKind } from './index-types.js';
import { instanceId, instanceObject, keyOf, toInstance } from './instance-resource.js';
import { createSortedViews } from './sorted-views.js';

export const gvk = (e: { group: string; version: string; kind: string }) => `${e.group}/${e.version}/${e.kind}`;

/** The kind an object is indexed under: its ref and the catalog entry serving it. */
type IndexedKind = Pick<WatchedKind, 'ref' | 'entry'>;

/** The index's in-memory maps and what requests read from them. */
export interface IndexStore
  extends Pick<InstanceIndex, 'get' | 'inProject' | 'projects' | 'all' | 'size' | 'rgdCounts' | 'countsRevision' | 'view'> {
  keyOfKind(object: KubeObject, kind: IndexedKind): InstanceKey;
  /** Indexes an object (new or changed); emits the change unless `silent`. */
  upsert(object: KubeObject, kind: IndexedKind, cause: InformerEventType, silent: boolean): void;
  remove(id: string, cause: IndexChange['cause']): void;
  /** Removes every instance of a kind (`gvk`), emitting an UNWATCHED deletion for each. */
  removeKind(kindKey: string): void;
  clear(): void;
}

/**
 * Maps by id and by project, counts per RGD (kept on every change, never counted on a read), and the sorted
 * views a page is read from; `emit` hears each change.
 */
export function createIndexStore(emit: (change: IndexChange) => void): IndexStore {
  const byId = new Map<string, IndexedInstance>();
  const byProject = new Map<string, Map<string, IndexedInstance>>();
  const views = createSortedViews<IndexedInstance>();
  const rgdCountsAll = new Map<string, number>();
  const rgdCountsByProject = new Map<string, Map<string, number>>();
  let countsRevision = 0;

  const countRgd = (item: IndexedInstance, delta: 1 | -1) => {
    let inProject = rgdCountsByProject.get(item.project);
    if (!inProject) rgdCountsByProject.set(item.project, (inProject = new Map()));
    for (const counts of [rgdCountsAll, inProject]) {
      const next = (counts.get(item.instance.rgdName) ?? 0) + delta;
      if (next > 0) counts.set(item.instance.rgdName, next);
      else counts.delete(item.instance.rgdName);
    }
    if (inProject.size === 0) rgdCountsByProject.delete(item.project);
  };

  const projectBucket = (project: string) => {
    let bucket = byProject.get(project);
    if (!bucket) byProject.set(project, (bucket = new Map()));
    return bucket;
  };

  const unlink = (item: IndexedInstance) => {
    countRgd(item, -1);
    byId.delete(item.id);
    const bucket = byProject.get(item.project);
    bucket?.delete(item.id);
    if (bucket?.size === 0) byProject.delete(item.project);
  };

  const keyOfKind = (object: KubeObject, kind: IndexedKind): InstanceKey => {
    const key = keyOf(object);
    if (!kind.ref.namespaced) key.namespace = '';
    return key;
  };

  const indexed = (object: KubeObject, kind: IndexedKind): IndexedInstance => {
    const instance = deepFreeze(withLazyJsonText(toInstance(object, { isClusterScoped: !kind.ref.namespaced, rgdName: kind.entry.name })));
    const key = keyOfKind(object, kind);
    return {
      id: instanceId(key),
      object,
      instance,
      sortKeys: {
        name: instance.name,
        namespace: instance.namespace,
        kind: instance.kind,
        project: instance.project,
        health: instance.health,
        createdAt: Date.parse(instance.createdAt) || 0,
        updatedAt: Date.parse(instance.updatedAt) || 0,
      },
      project: instance.project,
      rbacObject: instanceObject(instance.project, key),
      kindKey: gvk(kind.ref),
      ref: kind.ref,
    };
  };

  const remove = (id: string, cause: IndexChange['cause']) => {
    const previous = byId.get(id);
    if (!previous) return;
    countsRevision++;
    unlink(previous);
    views.update(previous, undefined);
    emit({ action: 'delete', current: previous, previous, cause });
  };

  return {
    keyOfKind,

    upsert(object, kind, cause, silent) {
      const item = indexed(object, kind);
      const previous = byId.get(item.id);
      if (!previous || previous.project !== item.project || previous.instance.rgdName !== item.instance.rgdName) countsRevision++;
      if (previous) unlink(previous);
      byId.set(item.id, item);
      projectBucket(item.project).set(item.id, item);
      countRgd(item, 1);
      views.update(previous, item);
      if (!silent) emit({ action: previous ? 'update' : 'add', current: item, previous, cause });
    },

    remove,

    removeKind(kindKey) {
      for (const item of [...byId.values()]) if (item.kindKey === kindKey) remove(item.id, 'UNWATCHED');
    },

    clear() {
      byId.clear();
      byProject.clear();
      views.clear();
      rgdCountsAll.clear();
      rgdCountsByProject.clear();
      countsRevision++;
    },

    get: (key) => byId.get(instanceId(key)),
    inProject: (project) => byProject.get(project)?.values() ?? [],
    projects: () => [...byProject.keys()],
    all: () => byId.values(),
    size: (project) => (project === undefined ? byId.size : (byProject.get(project)?.size ?? 0)),
    rgdCounts: (project) => (project === undefined ? rgdCountsAll : (rgdCountsByProject.get(project) ?? new Map())),
    countsRevision: () => countsRevision,

    view(spec) {
      return views.view(spec, function* () {
        if (!spec.projects) yield* byId.values();
        else for (const project of spec.projects) yield* byProject.get(project)?.values() ?? [];
      });
    },
  };
}
