import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import type { Disposable } from '../ports/cluster.js';
import type { KeyValue } from '../ports/keyvalue.js';
import type { DomainEvent, EventsService } from '../types.js';
import { jsonText, withJsonText, withLastMember } from '../json-text.js';
import { createOrdering } from './ordering.js';
import { setBounded } from '../bounded-map.js';

/** The one pub/sub channel every replica publishes to and listens on (the KeyValue adapter adds its prefix). */
export const eventsChannel = 'events';

/** How long a source claim lives: longer than any two replicas' informers can be apart on the same change. */
export const claimTtlMs = 60_000;

/** Messages a replica keeps for retry while the store cannot take them; past this, they collapse into a resync. */
const maxPending = 10_000;
const retryDelayMs = (attempt: number) => Math.min(2_000, 50 * 2 ** Math.min(attempt, 6));

/** Why clients are told to refetch (the `reason` of a `resync` event). */
const resyncReasons = {
  /** This replica's subscription was interrupted: messages published meanwhile never reached it. */
  gap: 'events-gap',
  /** This replica could not publish for so long that it dropped what it held. */
  overflow: 'events-dropped',
} as const;

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
  /**
   * Sends the event to every replica; with a claim, only when this replica wins it. Never loses it to a store
   * hiccup: what cannot be sent now is retried, in order, until it is (see docs/events.md).
   */
  publish(event: DomainEvent, opts?: PublishOptions): Promise<void>;
  /** Several events of one change: one claim, one message; listeners get them in order. */
  publishAll(events: DomainEvent[], opts?: PublishOptions): Promise<void>;
  /** Messages waiting for the store (operations, tests). */
  pendingCount(): number;
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

/**
 * A message's text. Each event's data is written from the text it may carry (an index's instance, made once), and
 * `dataAt` says where each data text starts and ends (-1 when absent), so a replica that receives the message takes
 * those texts as they are instead of serialising the parsed data again for every frame it sends. `seq` numbers the
 * publisher's messages, so the publisher finds its own message when it comes back without reading its whole text.
 * Both are fields a receiver that does not know them ignores.
 */
function messageText(message: WireMessage, seq: number): string {
  let text = `{"v":1,"origin":${JSON.stringify(message.origin)},"seq":${seq},"timestamp":${JSON.stringify(message.timestamp)},"events":[`;
  const dataAt: number[] = [];
  message.events.forEach((event, i) => {
    if (i > 0) text += ',';
    const head = JSON.stringify({ ...event, data: undefined });
    // Absent (or not JSON at all, a function): left out, as JSON.stringify of the message would.
    const data = event.data === undefined ? undefined : (jsonText(event.data) as string | undefined);
    if (data === undefined) {
      text += head;
      dataAt.push(-1, -1);
      return;
    }
    const eventText = withLastMember(head, 'data', data);
    const start = text.length + eventText.length - 1 - data.length;
    text += eventText;
    dataAt.push(start, start + data.length);
  });
  return `${text}],"dataAt":[${dataAt.join(',')}]}`;
}

/**
 * Gives each parsed event's data the text it was parsed from (see `messageText`). A position that does not frame
 * a value of the parsed kind (a publisher that does not write `dataAt`, or writes it wrong) is ignored: that data
 * is serialised again when sent, as before.
 */
function keepDataTexts(message: WireMessage & { dataAt?: unknown }, raw: string): void {
  const at = message.dataAt;
  if (!Array.isArray(at) || at.length !== 2 * message.events.length) return;
  message.events.forEach((event, i) => {
    const data = event?.data;
    const start = at[2 * i];
    const end = at[2 * i + 1];
    if (data === null || typeof data !== 'object' || !Number.isInteger(start) || !Number.isInteger(end)) return;
    if (start < 0 || end <= start || end > raw.length) return;
    const array = Array.isArray(data);
    if (raw[start] !== (array ? '[' : '{') || raw[end - 1] !== (array ? ']' : '}')) return;
    withJsonText(data, raw.slice(start, end));
  });
}

/** Messages in flight before they come back in (at most this many are kept; older ones are parsed like any other). */
const maxSentHere = 2_048;

/**
 * What this process published, by number, until its own subscription hands it back: the same message comes back
 * as the object it left as instead of being parsed again (a burst of status changes parsed every instance's JSON
 * once more). Receivers treat events as read-only either way. A message that never comes back (the channel was
 * down) ages out. A message is ours when it starts with our origin; its number finds it, and the text, compared
 * whole, confirms it (another process given the same replica id would publish other texts).
 */
function createSentMessages(replicaId: string) {
  const sent = new Map<number, { text: string; message: WireMessage }>();
  const ours = `{"v":1,"origin":${JSON.stringify(replicaId)},"seq":`;
  let seq = 0;
  return {
    next: () => ++seq,
    remember(seqOf: number, text: string, message: WireMessage) {
      setBounded(sent, maxSentHere, seqOf, { text, message });
    },
    take(text: string): WireMessage | undefined {
      if (!text.startsWith(ours)) return undefined;
      const n = Number.parseInt(text.slice(ours.length, text.indexOf(',', ours.length)), 10);
      const kept = sent.get(n);
      if (kept === undefined || kept.text !== text) return undefined;
      sent.delete(n);
      return kept.message;
    },
  };
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
  const ordering = createOrdering();
  const sentHere = createSentMessages(replicaId);
  let subscription: Disposable | undefined;
  let closed = false;

  const emit = (event: PublishedEvent) => {
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch (err) {
        logger.error({ err, type: event.type }, 'event listener failed');
      }
    }
  };

  const deliver = (raw: string) => {
    let message = sentHere.take(raw);
    if (message === undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        logger.warn('dropping a malformed event message');
        return;
      }
      if (!isWireMessage(parsed)) {
        logger.warn('dropping an event message of unknown shape');
        return;
      }
      keepDataTexts(parsed, raw);
      message = parsed;
    }
    for (const domainEvent of message.events) {
      if (!domainEvent || typeof domainEvent.type !== 'string') continue;
      if (!ordering.admit(domainEvent)) continue; // a duplicate, or overtaken by a later change of its object
      // One object for every local listener: they must treat it as read-only.
      emit({ ...domainEvent, timestamp: message.timestamp, origin: message.origin });
    }
  };

  /** Messages may have been lost while the subscription was down: every local listener is told to refetch. */
  const resyncLocally = (reason: string) => {
    const resourceVersion = ordering.newest();
    emit({ type: 'resync', data: resourceVersion ? { reason, resourceVersion } : { reason }, timestamp: new Date().toISOString(), origin: replicaId });
  };

  // Subscribing may fail while the store is down at start; keep trying, with backoff, until closed.
  const subscribe = async (): Promise<void> => {
    for (let attempt = 0; !closed; attempt++) {
      try {
        const sub = await kv.subscribe(eventsChannel, deliver, () => {
          logger.warn('the event subscription was interrupted; telling clients to resync');
          resyncLocally(resyncReasons.gap);
        });
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

  // --- publishing: at least once, in order ----------------------------------------------------------------

  interface Outgoing {
    events: DomainEvent[];
    claim?: string;
    /** The claim is ours (or there is none): only the publish is left. */
    claimed: boolean;
  }
  const pending: Outgoing[] = [];
  let retryTimer: NodeJS.Timeout | undefined;
  let attempts = 0;
  let draining = false;

  /** Claims (unless already ours) and publishes one message; false when another replica owns the claim. */
  const send = async (item: Outgoing): Promise<boolean> => {
    if (!item.claimed) {
      const key = `event-claim:${item.claim}`;
      // A claim whose reply was lost on the way back is still ours: its value says so.
      const won = (await kv.set(key, replicaId, { ttlMs: claimTtlMs, ifAbsent: true })) || (await kv.get(key)) === replicaId;
      if (!won) return false;
      item.claimed = true;
    }
    // Stamped when it leaves, after the claim: the time it was published, also when that took retries.
    const message: WireMessage = { v: 1, origin: replicaId, timestamp: new Date().toISOString(), events: item.events };
    const seq = sentHere.next();
    const text = messageText(message, seq);
    sentHere.remember(seq, text, message);
    await kv.publish(eventsChannel, text);
    return true;
  };

  const scheduleRetry = (err: unknown) => {
    if (attempts === 0) logger.warn({ err, pending: pending.length }, 'could not publish events; retrying until the store takes them');
    const delay = retryDelayMs(attempts++);
    clearTimeout(retryTimer);
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void drain();
    }, delay);
    retryTimer.unref?.();
  };

  /** Sends what is pending, oldest first; on a failure, waits and tries again from the same message. */
  const drain = async (): Promise<void> => {
    if (draining) return; // the running loop takes what was added
    draining = true;
    try {
      while (pending.length > 0 && !closed) {
        await send(pending[0]);
        pending.shift();
        attempts = 0;
      }
    } catch (err) {
      scheduleRetry(err);
    } finally {
      draining = false;
    }
  };

  /** The store has been away so long that holding more would be unbounded: clients refetch instead. */
  const collapse = () => {
    logger.error({ dropped: pending.length }, 'too many events waiting for the store; replacing them with a resync');
    pending.length = 0;
    pending.push({ events: [{ type: 'resync', data: { reason: resyncReasons.overflow } }], claimed: true });
  };

  async function publishAll(events: DomainEvent[], opts: PublishOptions = {}): Promise<void> {
    if (closed || events.length === 0) return;
    await subscribed;
    const item: Outgoing = { events, claim: opts.claim, claimed: opts.claim === undefined };
    // Behind messages waiting for a retry, this one waits too: what one replica publishes leaves in order.
    if (pending.length > 0) {
      pending.push(item);
      if (pending.length > maxPending) collapse();
      return;
    }
    try {
      await send(item);
    } catch (err) {
      // Not lost: kept and retried (receivers drop it if a later change of its object overtook it meanwhile).
      pending.push(item);
      if (!draining && retryTimer === undefined) scheduleRetry(err);
    }
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
    pendingCount: () => pending.length,
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      listeners.clear();
      subscription?.close();
      subscription = undefined;
    },
  };
}
