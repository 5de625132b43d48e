import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import type { Disposable } from '../ports/cluster.js';
import type { KeyValue } from '../ports/keyvalue.js';
import type { DomainEvent, EventsService } from '../types.js';

/** The one pub/sub channel every replica publishes to and listens on (the KeyValue adapter adds its prefix). */
export const eventsChannel = 'events';

/** How long a source claim lives: longer than any two replicas' informers can be apart on the same change. */
export const claimTtlMs = 60_000;

/** A delivered event: the domain event plus when and where it was produced. */
export interface PublishedEvent extends DomainEvent {
  /** RFC 3339 time the producing replica published it (used as the frame timestamp, so latency is measurable). */
  timestamp: string;
  /** replicaId of the producer. */
  origin: string;
}

export interface PublishOptions {
  /**
   * Dedupe at the source: replicas that watch one shared cluster all see the same change; only the replica that
   * wins `event-claim:<claim>` publishes. Use `<uid>:<resourceVersion>:<type>` of the observed change.
   */
  claim?: string;
}

export interface Events extends EventsService {
  /** Sends the event to every replica; with a claim, only when this replica wins it. */
  publish(event: DomainEvent, opts?: PublishOptions): Promise<void>;
  /** Several events of one change: one claim, one message; listeners get them in order. */
  publishAll(events: DomainEvent[], opts?: PublishOptions): Promise<void>;
  onEvent(listener: (event: PublishedEvent) => void): Disposable;
  /** Resolves once this process listens on the channel (events published before are not delivered here). */
  ready(): Promise<void>;
  readonly replicaId: string;
  close(): Promise<void>;
}

interface WireMessage {
  v: 1;
  origin: string;
  timestamp: string;
  events: DomainEvent[];
}

const isWireMessage = (m: unknown): m is WireMessage =>
  !!m && typeof m === 'object' && (m as WireMessage).v === 1 && Array.isArray((m as WireMessage).events);

/**
 * The event bus. Every event goes out through the KeyValue's pub/sub channel and comes back in through this
 * process's single subscription, so a process delivers each event to its local listeners exactly once whether
 * it was produced here or on another replica, and every replica sharing the store sees every event.
 */
export function createEvents(deps: { kv: KeyValue; logger: Logger; replicaId?: string }): Events {
  const { kv } = deps;
  const logger = deps.logger.child({ module: 'events' });
  const replicaId = deps.replicaId ?? randomUUID();
  const listeners = new Set<(event: PublishedEvent) => void>();
  let subscription: Disposable | undefined;
  let closed = false;

  const deliver = (raw: string) => {
    let message: unknown;
    try {
      message = JSON.parse(raw);
    } catch {
      logger.warn('dropping a malformed event message');
      return;
    }
    if (!isWireMessage(message)) {
      logger.warn('dropping an event message of unknown shape');
      return;
    }
    for (const domainEvent of message.events) {
      if (!domainEvent || typeof domainEvent.type !== 'string') continue;
      // One object for every local listener: they must treat it as read-only.
      const event: PublishedEvent = { ...domainEvent, timestamp: message.timestamp, origin: message.origin };
      for (const listener of [...listeners]) {
        try {
          listener(event);
        } catch (err) {
          logger.error({ err, type: event.type }, 'event listener failed');
        }
      }
    }
  };

  // Subscribing may fail while the store is down at start; keep trying, with backoff, until closed.
  const subscribe = async (): Promise<void> => {
    for (let attempt = 0; !closed; attempt++) {
      try {
        const sub = await kv.subscribe(eventsChannel, deliver);
        if (closed) sub.close();
        else subscription = sub;
        return;
      } catch (err) {
        const delay = Math.min(5_000, 100 * 2 ** attempt);
        logger.warn({ err, delay }, 'event channel subscription failed, retrying');
        await new Promise((resolve) => setTimeout(resolve, delay).unref?.());
      }
    }
  };
  const subscribed = subscribe();

  async function publishAll(events: DomainEvent[], opts: PublishOptions = {}): Promise<void> {
    if (closed || events.length === 0) return;
    await subscribed;
    if (opts.claim !== undefined) {
      const won = await kv.set(`event-claim:${opts.claim}`, replicaId, { ttlMs: claimTtlMs, ifAbsent: true });
      if (!won) return;
    }
    const message: WireMessage = { v: 1, origin: replicaId, timestamp: new Date().toISOString(), events };
    await kv.publish(eventsChannel, JSON.stringify(message));
  }

  return {
    replicaId,
    ready: () => subscribed,
    onEvent(listener) {
      listeners.add(listener);
      return { close: () => void listeners.delete(listener) };
    },
    publish: (event, opts) => publishAll([event], opts),
    publishAll,
    async close() {
      closed = true;
      listeners.clear();
      subscription?.close();
      subscription = undefined;
    },
  };
}
