import { ServerMessage, SubscriptionFilter, type WsTicket } from '@portico/api';
import { PorticoApiError } from './errors.js';
import type { CallOptions, WebSocketConstructor } from './options.js';
import { wsUrl } from './paths.js';
import { backoffDelay } from './sleep.js';
import { frameText, resolveWebSocket } from './websocket.js';

/**
 * Frames about the stream itself rather than about objects: the subscription's acknowledgement, pongs and the
 * catalog counters. The iterator leaves them out unless `controlFrames: true` asks for them; `onEvent` sees all.
 */
export const controlFrameTypes = ['subscribed', 'unsubscribed', 'pong', 'counts_update'] as const;
export type ControlFrame = Extract<ServerMessage, { type: (typeof controlFrameTypes)[number] }>;
/** What happened to an object (or an `error` frame): what the iterator yields by default. */
export type EventMessage = Exclude<ServerMessage, ControlFrame>;

const isControlFrame = (m: ServerMessage): m is ControlFrame => (controlFrameTypes as readonly string[]).includes(m.type);

export interface EventHandlers {
  /** Yield control frames (`subscribed`, `counts_update`, …) from the iterator too. */
  controlFrames?: boolean;
  /** Every server frame, control frames included, as it arrives. */
  onEvent?: (message: ServerMessage) => void;
  /** Drops, refused tickets, unreadable frames; the subscription reconnects unless the error is fatal. */
  onError?: (error: Error) => void;
  /** Each time a connection is open and the subscribe frame sent. */
  onOpen?: () => void;
  /** Aborting closes the subscription. */
  signal?: AbortSignal;
}

/** Server messages as an async iterator, plus `close()`. */
export interface EventSubscription<T extends ServerMessage = EventMessage> extends AsyncIterableIterator<T> {
  close(): void;
  readonly closed: boolean;
}

export interface EventsApi {
  /**
   * Live server events for `filter`, reconnecting with a fresh ticket after every drop. The iterator yields
   * what happened to objects; pass `controlFrames: true` to get `subscribed`, `counts_update`… from it too.
   */
  subscribe(filter: SubscriptionFilter, handlers: EventHandlers & { controlFrames: true }): EventSubscription<ServerMessage>;
  subscribe(filter: SubscriptionFilter, handlers?: EventHandlers): EventSubscription<EventMessage>;
}

interface EventDeps {
  baseUrl: string;
  wsTicket: (opts?: CallOptions) => Promise<WsTicket>;
  WebSocket?: WebSocketConstructor;
  reconnect?: { initialDelayMs?: number; maxDelayMs?: number };
}

/** 401/403 on the ticket means the token is gone or lacks rights: reconnecting cannot fix that. */
const isFatal = (e: unknown) => e instanceof PorticoApiError && (e.status === 401 || e.status === 403);

/**
 * Opens `/ws` with a fresh single-use ticket, sends `subscribe`, and after a drop does it all again with
 * exponential backoff (jittered), so a server restart or a lost network is survived without the caller noticing
 * more than an `onError` call.
 */
export function subscribeEvents(deps: EventDeps, filter: SubscriptionFilter, handlers: EventHandlers = {}): EventSubscription<ServerMessage> {
  const subscribeFrame = JSON.stringify({ type: 'subscribe', timestamp: new Date().toISOString(), data: SubscriptionFilter.parse(filter) });
  const initialMs = deps.reconnect?.initialDelayMs ?? 250;
  const maxMs = deps.reconnect?.maxDelayMs ?? 10_000;
  const stop = new AbortController();

  let closed = false;
  let iterating = false;
  let failure: Error | undefined;
  let attempt = 0;
  let socket: WebSocket | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const queue: ServerMessage[] = [];
  const waiters: { resolve: (r: IteratorResult<ServerMessage>) => void; reject: (e: unknown) => void }[] = [];

  const deliver = (message: ServerMessage) => {
    handlers.onEvent?.(message);
    if (!handlers.controlFrames && isControlFrame(message)) return;
    const waiter = waiters.shift();
    if (waiter) waiter.resolve({ value: message, done: false });
    // Buffer only for a reader: a callback-only subscriber must not grow memory forever.
    else if (iterating || !handlers.onEvent) queue.push(message);
  };

  const finish = (error?: Error) => {
    if (closed) return;
    closed = true;
    failure = error;
    clearTimeout(timer);
    stop.abort();
    socket?.close(1000);
    socket = undefined;
    for (const w of waiters.splice(0)) error ? w.reject(error) : w.resolve({ value: undefined, done: true });
  };

  const reportAndRetry = (error: Error) => {
    if (closed) return;
    handlers.onError?.(error);
    timer = setTimeout(() => void connect(), backoffDelay(attempt++, initialMs, maxMs));
  };

  async function connect(): Promise<void> {
    if (closed) return;
    let ticket: string;
    try {
      ticket = (await deps.wsTicket({ signal: stop.signal })).ticket;
    } catch (e) {
      if (closed) return;
      if (isFatal(e)) {
        handlers.onError?.(e as Error);
        return finish(e as Error);
      }
      return reportAndRetry(e as Error);
    }
    const Ctor = await resolveWebSocket(deps.WebSocket);
    if (closed) return;
    const ws = new Ctor(wsUrl(deps.baseUrl, ticket));
    socket = ws;
    let heard = false;
    ws.onopen = () => {
      ws.send(subscribeFrame);
      handlers.onOpen?.();
    };
    ws.onmessage = (ev: MessageEvent) => {
      // Frames already read from the socket are still dispatched after close(): the caller asked for no more.
      if (closed) return;
      if (!heard) {
        heard = true;
        attempt = 0; // the connection works: the next drop starts the backoff from the beginning
      }
      let parsed;
      try {
        parsed = ServerMessage.safeParse(JSON.parse(frameText(ev.data)));
      } catch {
        parsed = undefined;
      }
      if (parsed?.success) deliver(parsed.data as ServerMessage);
      else handlers.onError?.(new PorticoApiError({ status: 0, code: 'INVALID_MESSAGE', message: 'unreadable event frame from the server' }));
    };
    ws.onerror = () => {
      // a close event always follows; reconnection is handled there
    };
    ws.onclose = (ev: CloseEvent) => {
      if (socket === ws) socket = undefined;
      const reason = ev.reason ? `: ${ev.reason}` : '';
      reportAndRetry(new PorticoApiError({ status: 0, code: 'NETWORK_ERROR', message: `event stream closed (${ev.code}${reason}), reconnecting` }));
    };
  }

  const subscription: EventSubscription<ServerMessage> = {
    get closed() {
      return closed;
    },
    close: () => finish(),
    next() {
      const value = queue.shift();
      if (value) return Promise.resolve({ value, done: false });
      if (failure) return Promise.reject(failure);
      if (closed) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve, reject) => waiters.push({ resolve, reject }));
    },
    return() {
      finish();
      return Promise.resolve({ value: undefined, done: true });
    },
    [Symbol.asyncIterator]() {
      iterating = true;
      return subscription;
    },
  };

  if (handlers.signal?.aborted) finish();
  else {
    handlers.signal?.addEventListener('abort', () => finish(), { once: true });
    void connect();
  }
  return subscription;
}
