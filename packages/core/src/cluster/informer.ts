import { createLogger, type Logger } from '../logger.js';
import type { Cluster, ComponentHealth, Disposable, KubeObject, ResourceRef, WatchEvent } from '../ports/cluster.js';
import { createInformerCache, isNewer } from './informer-cache.js';
import type { Informer } from './informer-types.js';

export interface InformerOptions {
  /** Only this namespace; all namespaces when absent. */
  namespace?: string;
  logger?: Logger;
  /** Restart the watch when nothing (not even a BOOKMARK) arrived for this long (default 120 s). */
  stallMs?: number;
  /** Backoff between failed attempts (default 250 ms doubling to 30 s; reset once a watch delivers). */
  backoff?: { initialMs: number; maxMs: number };
}

/** How long a resumed watch must stay up without an error before the informer reports healthy again. */
const QUIET_MS = 2_000;

/**
 * list + watch cache over one resource, in the manner of client-go: it watches from the list's version,
 * resumes from the last seen version after errors or a stalled stream, and relists on 410 Gone, emitting
 * the difference so listeners never miss a change. Cached objects are frozen: share, don't mutate. The cache
 * and its listeners are informer-cache's; this file keeps the list and the watch going.
 */
export function createInformer(cluster: Cluster, ref: ResourceRef, opts: InformerOptions = {}): Informer {
  const logger = opts.logger ?? createLogger('silent');
  const stallMs = opts.stallMs ?? 120_000;
  const backoff = opts.backoff ?? { initialMs: 250, maxMs: 30_000 };
  const cache = createInformerCache(ref, logger);

  let lastVersion: string | undefined;
  let synced = false;
  let problem: string | undefined = 'not synced yet';
  let stopped = false;
  let failures = 0;
  let quietTimer: ReturnType<typeof setTimeout> | undefined;
  let watch: Disposable | undefined;
  let attempt = 0; // identifies the current watch, so late callbacks of a closed one are ignored
  let retryTimer: NodeJS.Timeout | undefined;
  let stallTimer: NodeJS.Timeout | undefined;
  let started: Promise<void> | undefined;
  let resolveStart: (() => void) | undefined;
  let rejectStart: ((err: Error) => void) | undefined;

  const clearTimers = () => {
    clearTimeout(retryTimer);
    clearTimeout(stallTimer);
    clearTimeout(quietTimer);
    retryTimer = stallTimer = quietTimer = undefined;
  };

  const closeWatch = () => {
    attempt += 1;
    clearTimeout(stallTimer);
    stallTimer = undefined;
    watch?.close();
    watch = undefined;
  };

  const nextDelay = () => Math.min(backoff.initialMs * 2 ** Math.max(0, failures - 1), backoff.maxMs);

  /** Ends the current watch and tries again later: from the last version, or with a relist. */
  const retry = (reason: string, how: 'resume' | 'relist', immediately = false) => {
    if (stopped) return;
    closeWatch();
    failures += 1;
    problem = reason;
    const delay = immediately ? 0 : nextDelay();
    logger.warn({ kind: ref.kind, reason, retryInMs: delay }, 'informer restarting');
    clearTimeout(retryTimer);
    retryTimer = setTimeout(() => (how === 'relist' || !lastVersion ? relist() : startWatch(lastVersion)), delay);
    retryTimer.unref();
  };

  // The stall timer is armed once per watch and, when it fires, re-armed for what is left since the last event:
  // re-arming it on every event cost a clearTimeout and a setTimeout per change, a few percent of a burst.
  let lastEventAt = 0;
  const armStallTimer = (id: number, delayMs = stallMs) => {
    clearTimeout(stallTimer);
    stallTimer = setTimeout(() => {
      if (id !== attempt) return;
      const quietFor = Date.now() - lastEventAt;
      if (quietFor < stallMs) armStallTimer(id, stallMs - quietFor);
      else retry(`no watch event for ${stallMs} ms`, 'resume');
    }, delayMs);
    stallTimer.unref();
  };

  const onEvent = (id: number, event: WatchEvent) => {
    if (id !== attempt || stopped) return;
    lastEventAt = Date.now();
    failures = 0; // the stream works: later failures start the backoff afresh
    problem = undefined;
    const version = event.object?.metadata?.resourceVersion;
    if (event.type === 'ADDED' || event.type === 'MODIFIED') cache.upsert(event.object);
    else if (event.type === 'DELETED') cache.remove(event.object);
    if (version && isNewer(version, lastVersion)) lastVersion = version;
  };

  function startWatch(fromVersion: string) {
    if (stopped) return;
    closeWatch();
    const id = attempt;
    try {
      watch = cluster.watch(ref, { namespace: opts.namespace, resourceVersion: fromVersion }, {
        onEvent: (event) => onEvent(id, event),
        onError: (error) => {
          if (id !== attempt || stopped) return;
          // 410 Gone is routine (history compacted): relist at once the first time, with backoff if it repeats.
          if (error.gone) retry(`watch expired: ${error.message}`, 'relist', failures === 0);
          else retry(`watch failed: ${error.message}`, 'resume');
        },
      });
    } catch (err) {
      retry(`watch failed: ${(err as Error).message}`, 'resume');
      return;
    }
    // Opening a watch proves nothing yet (a refused connection fails a moment later): a resumed watch counts
    // as healthy once it delivers an event or stays up for a quiet moment; a relist clears the problem itself.
    if (problem) {
      clearTimeout(quietTimer);
      quietTimer = setTimeout(() => {
        if (id === attempt && !stopped) problem = undefined;
      }, QUIET_MS);
      quietTimer.unref();
    }
    lastEventAt = Date.now();
    armStallTimer(id);
  }

  async function relist() {
    if (stopped) return;
    closeWatch();
    const id = attempt;
    let listed: { items: KubeObject[]; resourceVersion: string };
    try {
      listed = await cluster.list(ref, { namespace: opts.namespace });
    } catch (err) {
      if (id === attempt && !stopped) retry(`list failed: ${(err as Error).message}`, 'relist');
      return;
    }
    if (id !== attempt || stopped) return;
    if (!(await cache.applyList(listed.items, () => id !== attempt || stopped))) return;
    lastVersion = listed.resourceVersion;
    problem = undefined; // the cache is current as of this list
    if (!synced) {
      synced = true;
      resolveStart?.();
    }
    startWatch(listed.resourceVersion);
  }

  return {
    ref,

    start() {
      if (stopped && !started) return Promise.reject(new Error(`informer for ${ref.kind} was stopped`));
      if (!started) {
        started = new Promise<void>((resolve, reject) => {
          resolveStart = resolve;
          rejectStart = reject;
        });
        void relist();
      }
      return started;
    },

    stop() {
      if (stopped) return;
      stopped = true;
      closeWatch();
      clearTimers();
      if (!synced) rejectStart?.(new Error(`informer for ${ref.kind} stopped before it synced`));
    },

    list: cache.list,
    get: cache.get,
    on: cache.on,

    health(): ComponentHealth {
      if (stopped) return { ok: false, message: `${ref.kind} informer stopped` };
      if (!synced) return { ok: false, message: `${ref.kind} informer not synced: ${problem ?? 'listing'}` };
      if (problem) return { ok: false, message: `${ref.kind} informer reconnecting: ${problem}` };
      return { ok: true };
    },
  };
}
