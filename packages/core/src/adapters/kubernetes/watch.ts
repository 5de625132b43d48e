import type { IncomingMessage } from 'node:http';
import type { Logger } from '../../logger.js';
import { apiVersionOf, type Disposable, type KubeObject, type ResourceRef, type WatchHandlers } from '../../ports/cluster.js';
import type { HealthTracker } from './health.js';
import { isServerSide, statusOf, type KubeStatus } from './kube-errors.js';
import { collectionPath } from './paths.js';
import { parseBody, readBody, type KubeTransport } from './transport.js';

interface WatchArgs {
  transport: KubeTransport;
  ref: ResourceRef;
  namespace?: string;
  resourceVersion: string;
  handlers: WatchHandlers;
  /** How long to wait for the response headers before giving up. */
  connectTimeoutMs: number;
  health: HealthTracker;
  logger: Logger;
}

const EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);

/** 410 Gone (`Expired`): the requested version has been compacted away; only a relist helps. */
const isGone = (status: KubeStatus) => status.code === 410 || status.reason === 'Expired' || status.reason === 'Gone';

/**
 * One streaming watch (`?watch=1`, newline-delimited JSON events). It never retries by itself: it ends with
 * exactly one `onError` (`gone` for 410, otherwise a dropped stream, a non-200 or a network error) and the
 * informer decides whether to relist or to resume. After `close()` nothing more is delivered.
 */
export function openWatch(args: WatchArgs): Disposable & { done: Promise<void> } {
  const { ref, handlers, health, logger } = args;
  const controller = new AbortController();
  let closed = false;
  let ended = false;
  let response: IncomingMessage | undefined;
  let resolveDone!: () => void;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));

  const end = (error?: { gone: boolean; message: string }) => {
    if (ended) return;
    ended = true;
    controller.abort();
    response?.destroy();
    resolveDone();
    if (error && !closed) handlers.onError(error);
  };

  const deliver = (line: string) => {
    let event: { type?: string; object?: unknown };
    try {
      event = JSON.parse(line);
    } catch {
      end({ gone: false, message: 'malformed watch event from the Kubernetes API' });
      return;
    }
    if (event.type === 'ERROR') {
      const status = (event.object ?? {}) as KubeStatus;
      end({ gone: isGone(status), message: `watch ended by the API server: ${status.message ?? status.reason ?? 'error'}` });
      return;
    }
    if (!event.type || !EVENT_TYPES.has(event.type) || typeof event.object !== 'object' || event.object === null) {
      logger.debug({ type: event.type }, 'ignoring unknown watch event');
      return;
    }
    const object = event.object as KubeObject;
    // Built-in kinds arrive without apiVersion/kind on the wire in some server versions; consumers expect them.
    if (event.type !== 'BOOKMARK') {
      object.apiVersion ??= apiVersionOf(ref);
      object.kind ??= ref.kind;
    }
    try {
      handlers.onEvent({ type: event.type as 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK', object });
    } catch (err) {
      // A consumer bug must not kill the stream silently or crash the process from a socket callback.
      logger.error({ err, kind: ref.kind }, 'watch event handler failed');
    }
  };

  const consume = (res: IncomingMessage) => {
    let buffer = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let newline = buffer.indexOf('\n');
      while (newline >= 0 && !ended && !closed) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (line) deliver(line);
        newline = buffer.indexOf('\n');
      }
    });
    res.on('end', () => end({ gone: false, message: 'watch stream closed by the API server' }));
    res.on('aborted', () => end({ gone: false, message: 'watch connection lost' }));
    res.on('error', (err) => {
      if (closed || ended) return; // our own abort after the end, not a lost connection
      health.failed(`watch connection lost: ${err.message}`);
      end({ gone: false, message: `watch connection lost: ${err.message}` });
    });
    res.on('close', () => end({ gone: false, message: 'watch connection closed' }));
  };

  const start = async () => {
    const request = {
      method: 'GET' as const,
      path: collectionPath(ref, args.namespace),
      query: { watch: '1', resourceVersion: args.resourceVersion, allowWatchBookmarks: 'true' },
    };
    let res: IncomingMessage;
    try {
      res = await args.transport.stream(request, controller.signal, args.connectTimeoutMs);
    } catch (err) {
      if (closed) return end();
      const message = `cannot watch ${ref.plural}: ${(err as Error).message}`;
      health.failed(message);
      return end({ gone: false, message });
    }
    response = res;
    if (closed) return end();
    const code = res.statusCode ?? 0;
    if (code !== 200) {
      const body = await readBody(res).catch(() => '');
      const status = statusOf({ status: code, body: parseBody(body) });
      if (isServerSide(code)) health.failed(`watch of ${ref.plural} answered ${code}`);
      else health.succeeded();
      return end({ gone: code === 410 || isGone(status), message: `watch of ${ref.plural} failed (${code}): ${status.message}` });
    }
    health.succeeded();
    consume(res);
  };

  void start();

  return {
    done,
    close() {
      if (closed) return;
      closed = true;
      end();
    },
  };
}
