import { createInformer, type InformerOptions } from '../../../cluster/informer.js';
import { objectKey, type Informer, type InformerEvent } from '../../../cluster/informer-types.js';
import type { ResourceDescription } from '../../../catalog/resource-descriptions.js';
import { refKey, type Cluster, type Disposable, type KubeObject, type ResourceRef } from '../../../ports/cluster.js';
import { releasable } from './kro-markers.js';
import { idOf, type KroWrites } from './kro-writes.js';

/** An instance kind kro serves for an RGD, with the informer the controller reads it through. */
export interface ManagedKind {
  ref: ResourceRef;
  informer: Informer;
  subscription: Disposable;
  /** The RGD that owns the kind now; undefined once it is gone or invalid (then only finalizers are released). */
  owner?: string;
  /** Resource ids in the owner's topological order. */
  order: string[];
  /** The owner's resources, to name the objects its Events are about. */
  graph: ResourceDescription[];
}

interface WorkItem {
  kind: ManagedKind;
  key: string;
}

/** The instance kinds kro serves, and which of their instances have work to do. */
export interface InstanceKinds {
  /** Instances with work to do (or to look at once more): only these are reconciled, never every instance. */
  readonly inFlight: Map<string, WorkItem>;
  /** kro starts serving (and reconciling) the instance kind of a valid RGD. */
  adopt(rgdName: string, ref: ResourceRef, order: string[], graph: ResourceDescription[]): void;
  /** The RGD no longer serves its kind: instances being deleted must not keep our finalizer forever. */
  disown(rgdName: string): void;
  close(): void;
}

interface InstanceKindsDeps {
  cluster: Cluster;
  informerOptions: InformerOptions;
  writes: KroWrites;
  /** Every RGD's name, to have them looked at again when a kind loses its owner. */
  rgdNames(): string[];
  /** Marks an RGD for the next step. */
  dirtyRgd(name: string): void;
  wake(): void;
  /** Starts an informer, counting it as pending work until its first list is in; `failure` is logged if it fails. */
  startInformer(informer: Informer, failure: string, fields?: Record<string, unknown>): void;
}

export function createInstanceKinds({ cluster, informerOptions, writes, rgdNames, dirtyRgd, wake, startInformer }: InstanceKindsDeps): InstanceKinds {
  const kinds = new Map<string, ManagedKind>();
  const inFlight = new Map<string, WorkItem>();

  const onInstanceEvent = (kind: ManagedKind) => (event: InformerEvent) => {
    const key = objectKey(event.object);
    if (event.type === 'DELETED') {
      inFlight.delete(idOf(kind.ref, key));
      writes.forget(kind.ref, key);
      return;
    }
    if (!writes.isNews(kind.ref, key, event)) return; // our own write coming back (or an older one)
    inFlight.set(idOf(kind.ref, key), { kind, key });
    wake();
  };

  /** Once per kind change (new owner, new graph, owner gone): every instance of the kind gets a look. */
  const revisitAll = (kind: ManagedKind, only: (obj: KubeObject) => boolean = () => true) => {
    for (const obj of kind.informer.list()) {
      if (only(obj)) inFlight.set(idOf(kind.ref, objectKey(obj)), { kind, key: objectKey(obj) });
    }
  };

  return {
    inFlight,

    adopt(rgdName, ref, order, graph) {
      const existing = kinds.get(refKey(ref));
      if (existing) {
        if (existing.owner !== undefined && existing.owner !== rgdName) return; // another RGD serves this kind
        const changed = existing.owner !== rgdName || existing.order.join() !== order.join();
        existing.owner = rgdName;
        existing.order = order;
        existing.graph = graph;
        if (changed) revisitAll(existing);
        return;
      }
      const informer = createInformer(cluster, ref, informerOptions);
      const kind: ManagedKind = { ref, informer, subscription: { close() {} }, owner: rgdName, order, graph };
      kinds.set(refKey(ref), kind);
      kind.subscription = informer.on(onInstanceEvent(kind));
      startInformer(informer, 'kro simulator: instance informer did not start', { kind: ref.kind });
    },

    disown(rgdName) {
      for (const kind of kinds.values()) {
        if (kind.owner !== rgdName) continue;
        kind.owner = undefined;
        revisitAll(kind, (obj) => Boolean(releasable(obj)));
        // Another RGD may declare the same kind and take it over.
        for (const name of rgdNames()) if (name !== rgdName) dirtyRgd(name);
      }
    },

    close() {
      for (const kind of kinds.values()) {
        kind.subscription.close();
        kind.informer.stop();
      }
      kinds.clear();
      inFlight.clear();
    },
  };
}
