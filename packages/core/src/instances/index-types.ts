import type * as api from '@portico/api';
import type { CatalogChange, CatalogEntry } from '../catalog/types.js';
import type { Informer, InformerEventType } from '../cluster/informer-types.js';
import type { WriteTarget } from '../cluster/resource-version.js';
import type { Logger } from '../logger.js';
import type { Cluster, Disposable, KubeObject, ResourceRef } from '../ports/cluster.js';
import type { InstanceKey } from './instance-key.js';
import type { InstanceSortBy, SortedView, ViewSpec } from './sorted-views.js';

/** How the index obtains informers (the cluster module's `createInformer`). */
export type CreateInformer = (cluster: Cluster, ref: ResourceRef, opts?: { namespace?: string; logger?: Logger }) => Informer;

/** The part of the catalog the index follows. */
export interface CatalogSource {
  entries(): CatalogEntry[];
  onChange(listener: (action: CatalogChange, entry: CatalogEntry) => void): Disposable;
}

/**
 * One instance as the index holds it: converted once per change, read many times. `object` is the informer's
 * frozen object (the one the cluster adapter handed out), `instance` its frozen wire form, serialised once.
 */
export interface IndexedInstance {
  /** `<namespace>/<kind>/<name>`. */
  id: string;
  object: KubeObject;
  instance: api.Instance;
  /** The value of each sort key, computed once (a date sort compares numbers, not timestamps). */
  sortKeys: Record<InstanceSortBy, string | number>;
  /** '' when the object carries no project label (created outside Portico): visible to Server Admins only. */
  project: string;
  /** `instances/<project>/<namespace>/<kind>/<name>`. */
  rbacObject: string;
  /** `<group>/<version>/<kind>` of the informer that holds it. */
  kindKey: string;
  /** The resource it is read and written through. */
  ref: ResourceRef;
}

/** A write the index should show: a resourceVersion (or a later one), or the object gone / being deleted. */
export type IndexTarget = WriteTarget;

export interface IndexChange {
  action: 'add' | 'update' | 'delete';
  current: IndexedInstance;
  previous?: IndexedInstance;
  /** The watch event behind the change; `UNWATCHED` when the kind left the catalog. */
  cause: InformerEventType | 'UNWATCHED';
}

/** A kind that joined the catalog after start(), indexed with the instances it already had. */
export interface KindIndexed {
  rgdName: string;
  ref: ResourceRef;
  /** How many instances its first list brought in (at least one). */
  instances: number;
  /** The highest resourceVersion among them: the same on every replica that lists the same state. */
  resourceVersion: string;
}

export interface InstanceIndex {
  /** Starts an informer for every catalog kind and follows catalog changes; resolves when all have synced. */
  start(): Promise<void>;
  stop(): void;
  get(key: InstanceKey): IndexedInstance | undefined;
  inProject(project: string): Iterable<IndexedInstance>;
  projects(): string[];
  all(): Iterable<IndexedInstance>;
  /** How many instances the index holds: in `project`, or everywhere. */
  size(project?: string): number;
  /** Instances per RGD name: in `project`, or everywhere. Maintained on every change, never counted on a read. */
  rgdCounts(project?: string): ReadonlyMap<string, number>;
  /** Grows whenever an instance comes, goes or changes project or RGD (what counts per RGD depend on); not on a status change. */
  countsRevision(): number;
  /** The sorted view for `spec` (see sorted-views.ts): a page is read by position. */
  view(spec: ViewSpec): SortedView<IndexedInstance>;
  /** The watched resource of a kind, undefined when no catalog RGD serves it (yet). */
  refOf(entry: CatalogEntry): ResourceRef | undefined;
  onChange(listener: (change: IndexChange) => void): Disposable;
  /**
   * A kind's first list is indexed without per-instance changes; when the kind joins after start() and brings
   * instances along, counts move all the same, and this tells.
   */
  onKindIndexed(listener: (joined: KindIndexed) => void): Disposable;
  /** Resolves after pending informer starts/stops (tests, and create() waiting for a new kind). */
  settled(): Promise<void>;
  /**
   * Resolves once the index shows a write, so the writer's next read includes it (read-your-writes); `false`
   * after `timeoutMs` rather than an error: the write itself has succeeded.
   */
  waitFor(key: InstanceKey, target: IndexTarget, timeoutMs?: number): Promise<boolean>;
}

/** A catalog kind the index watches, through its own informer. */
export interface WatchedKind {
  ref: ResourceRef;
  informer: Informer;
  subscription: Disposable;
  /** The catalog entry that owns the kind now; refreshed on RGD updates. */
  entry: CatalogEntry;
  /** True until the informer's first list is applied. */
  syncing: boolean;
}
