import { createInformer, refKey, type Cluster, type Disposable, type Informer, type InformerEvent, type Logger, type ResourceRef } from '@portico/core';

/** Informers over kinds known only at run time (constraint kinds, instance kinds), one per kind, sharing one listener. */
export interface InformerSet {
  /** Starts an informer for `ref` unless one runs; resolves once it has listed. */
  ensure(ref: ResourceRef): Promise<Informer>;
  /** Stops the informer of `ref` (its objects are gone from the caches). */
  drop(ref: ResourceRef): void;
  get(ref: ResourceRef): Informer | undefined;
  all(): Informer[];
  stop(): void;
}

export function createInformerSet(cluster: Cluster, logger: Logger, onEvent: (ref: ResourceRef, event: InformerEvent) => void): InformerSet {
  const running = new Map<string, { informer: Informer; subscription: Disposable; started: Promise<void> }>();
  return {
    async ensure(ref) {
      const key = refKey(ref);
      let entry = running.get(key);
      if (!entry) {
        const informer = createInformer(cluster, ref, { logger });
        const subscription = informer.on((event) => onEvent(ref, event));
        entry = { informer, subscription, started: informer.start() };
        running.set(key, entry);
      }
      await entry.started;
      return entry.informer;
    },
    drop(ref) {
      const key = refKey(ref);
      const entry = running.get(key);
      if (!entry) return;
      running.delete(key);
      entry.subscription.close();
      entry.informer.stop();
    },
    get: (ref) => running.get(refKey(ref))?.informer,
    all: () => [...running.values()].map((e) => e.informer),
    stop() {
      for (const entry of running.values()) {
        entry.subscription.close();
        entry.informer.stop();
      }
      running.clear();
    },
  };
}
