import { apiVersionOf, refKey, type Disposable, type KubeObject, type ResourceRef, type WatchEvent, type WatchHandlers } from '../../ports/cluster.js';

/**
 * Per-resource event logs and live watchers, with Kubernetes watch semantics: a watch resumes from a
 * resourceVersion by replaying the log, and a version older than what the log still holds is "gone" (410),
 * which tells the consumer to relist. Delivery is asynchronous and in order. Events carry the store's own frozen
 * objects: every watcher shares them.
 */
export interface WatchHub {
  /** Records an event (the object carries its new resourceVersion) and queues it to matching watchers. */
  record(ref: ResourceRef, type: 'ADDED' | 'MODIFIED' | 'DELETED', object: KubeObject): void;
  watch(ref: ResourceRef, opts: { namespace?: string; resourceVersion: string }, handlers: WatchHandlers, current: () => KubeObject[]): Disposable;
  /** Sends a BOOKMARK at `resourceVersion` to every watcher. */
  bookmark(resourceVersion: number): void;
  closeAll(): void;
}

interface LoggedEvent {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
}

interface Watcher {
  ref: ResourceRef;
  namespace?: string;
  handlers: WatchHandlers;
  queue: WatchEvent[];
  scheduled: boolean;
  closed: boolean;
}

interface RefLog {
  events: LoggedEvent[];
  /** Events at or below this version are no longer in the log (trimmed, or from before this process). */
  horizon: number;
  watchers: Set<Watcher>;
}

interface WatchHubOptions {
  maxEvents: number;
  startVersion: number;
  /** A watch handler threw: reported here, and the watch goes on with its next event. */
  onHandlerError?: (err: unknown, ref: ResourceRef) => void;
}

export function createWatchHub(opts: WatchHubOptions): WatchHub {
  const logs = new Map<string, RefLog>();
  const trimChunk = Math.max(1, Math.floor(opts.maxEvents / 10));

  const logOf = (ref: ResourceRef): RefLog => {
    const key = refKey(ref);
    let log = logs.get(key);
    if (!log) {
      log = { events: [], horizon: opts.startVersion, watchers: new Set() };
      logs.set(key, log);
    }
    return log;
  };

  /**
   * Handlers run from setImmediate: a throw there would be an uncaught exception (the process dies) and would
   * strand the rest of the queue. A consumer bug is reported instead, as the Kubernetes adapter's watch does.
   */
  const call = (ref: ResourceRef, handler: () => void) => {
    try {
      handler();
    } catch (err) {
      opts.onHandlerError?.(err, ref);
    }
  };

  const flush = (w: Watcher) => {
    w.scheduled = false;
    while (!w.closed && w.queue.length > 0) {
      const event = w.queue.shift()!;
      call(w.ref, () => w.handlers.onEvent(event));
    }
  };

  const enqueue = (w: Watcher, event: WatchEvent) => {
    if (w.closed) return;
    w.queue.push(event);
    if (!w.scheduled) {
      w.scheduled = true;
      setImmediate(() => flush(w));
    }
  };

  const matches = (w: Watcher, object: KubeObject) => !w.namespace || object.metadata.namespace === w.namespace;

  const fail = (ref: ResourceRef, handlers: WatchHandlers, error: { gone: boolean; message: string }): Disposable => {
    let closed = false;
    setImmediate(() => {
      if (!closed) call(ref, () => handlers.onError(error));
    });
    return { close: () => void (closed = true) };
  };

  return {
    record(ref, type, object) {
      const log = logOf(ref);
      const rv = Number(object.metadata.resourceVersion);
      log.events.push({ rv, type, object });
      if (log.events.length > opts.maxEvents) {
        const dropped = log.events.splice(0, trimChunk);
        log.horizon = dropped[dropped.length - 1].rv;
      }
      for (const w of log.watchers) if (matches(w, object)) enqueue(w, { type, object });
    },

    watch(ref, { namespace, resourceVersion }, handlers, current) {
      const log = logOf(ref);
      // As in Kubernetes, a namespace means nothing for a cluster-scoped kind.
      const watcher: Watcher = { ref, namespace: ref.namespaced ? namespace : undefined, handlers, queue: [], scheduled: false, closed: false };
      if (resourceVersion === '' || resourceVersion === '0') {
        // Kubernetes "any version": start with the current state as ADDED events, then stream.
        for (const object of current()) if (matches(watcher, object)) enqueue(watcher, { type: 'ADDED', object });
      } else {
        const from = Number(resourceVersion);
        if (!/^\d+$/.test(resourceVersion) || !Number.isSafeInteger(from)) {
          return fail(ref, handlers, { gone: true, message: `invalid resourceVersion "${resourceVersion}": relist` });
        }
        if (from < log.horizon) {
          return fail(ref, handlers, { gone: true, message: `too old resource version: ${from} (${log.horizon})` });
        }
        for (const e of log.events) {
          if (e.rv > from && matches(watcher, e.object)) enqueue(watcher, { type: e.type, object: e.object });
        }
      }
      log.watchers.add(watcher);
      return {
        close() {
          watcher.closed = true;
          watcher.queue.length = 0;
          log.watchers.delete(watcher);
        },
      };
    },

    bookmark(resourceVersion) {
      for (const log of logs.values()) {
        for (const w of log.watchers) {
          enqueue(w, {
            type: 'BOOKMARK',
            object: { apiVersion: apiVersionOf(w.ref), kind: w.ref.kind, metadata: { name: '', resourceVersion: String(resourceVersion) } },
          });
        }
      }
    },

    closeAll() {
      for (const log of logs.values()) {
        for (const w of log.watchers) {
          w.closed = true;
          w.queue.length = 0;
        }
        log.watchers.clear();
      }
    },
  };
}
