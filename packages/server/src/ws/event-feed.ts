import { wsCloseCodes } from '@portico/api';
import type { DomainEvent, EventAudience, Logger, Portico } from '@portico/core';
import { frame, type Connection } from './connection.js';
import type { CountsSender } from './counts.js';
import type { Outbox } from './outbox.js';
import { anyMatches } from './subscriptions.js';
import { textFrame, type WireFrame } from './wire.js';

const timestampOf = (event: DomainEvent) => {
  const t = (event as DomainEvent & { timestamp?: unknown }).timestamp;
  return typeof t === 'string' ? t : new Date().toISOString();
};

interface EventFeedDeps {
  portico: Portico;
  logger: Logger;
  /** Who may receive an event: core's answer. */
  audience: EventAudience<Connection>;
  outbox: Outbox<Connection>;
  connections: ReadonlySet<Connection>;
  counts: CountsSender;
  /** Told of every event frame queued to a socket (the events-sent metric). */
  onEventSent?: (type: string) => void;
}

/**
 * What the sockets hear of Portico's events: each event fanned out to the sockets that subscribed to it and may
 * see it now, counts on changes, a resync after a gap, and the close of sessions revoked on any replica.
 * Returns what stops following them.
 */
export function followEvents({ portico, logger, audience, outbox, connections, counts, onEventSent }: EventFeedDeps): { close(): void } {
  /**
   * One event: serialised and framed at most once, the same bytes queued for every socket that subscribed to it
   * and that core says may see it now.
   */
  const fanOut = (event: DomainEvent) => {
    const type = audience.resourceTypeOf(event);
    if (!type) return;
    const visibleTo = audience.visibleTo(event);
    let wire: WireFrame | undefined;
    for (const conn of audience.audienceOf(event)) {
      if (conn.socket.readyState !== conn.socket.OPEN) continue;
      if (!anyMatches(conn.filters, type, event)) continue;
      if (!visibleTo(conn)) continue;
      wire ??= textFrame(frame(event.type as 'instance_update', event.data, timestampOf(event)));
      outbox.push(conn, wire);
      onEventSent?.(event.type);
    }
  };

  /** A session revoked while the bus was down: its notice was lost with the gap. */
  const closeIfRevoked = (conn: Connection) =>
    portico.auth.sessionValid(conn.actor).then(
      (valid) => {
        if (!valid) conn.socket.close(wsCloseCodes.sessionRevoked, 'session revoked');
      },
      (err: unknown) => logger.warn({ err, user: conn.actor.subject }, 'could not re-check a WebSocket session after an event gap'),
    );

  /**
   * The event stream had a gap: every socket that follows something is told to refetch it, and every socket's
   * session is checked again, since a revocation notice may have been lost with the gap.
   */
  const resyncAll = (event: DomainEvent) => {
    const wire = textFrame(frame('resync', event.data, timestampOf(event)));
    for (const conn of connections) {
      if (conn.socket.readyState !== conn.socket.OPEN) continue;
      if (conn.filters.length > 0) outbox.push(conn, wire);
      void closeIfRevoked(conn);
    }
    counts.schedule();
  };

  const eventSubscription = portico.events.onEvent((event) => {
    try {
      if (event.type === 'counts_changed') counts.schedule();
      else if (event.type === 'resync') resyncAll(event);
      else fanOut(event);
    } catch (err) {
      logger.error({ err, type: event.type }, 'WebSocket fan-out failed');
    }
  });
  // A binding added or removed changes what a user counts (core has already re-read who may see what).
  const policySubscription = audience.onChange(counts.schedule);

  // A logout, password change or account deletion on any replica ends the sockets of the sessions it cut off.
  const revocationSubscription = portico.auth.onSessionsRevoked((isRevoked) => {
    for (const conn of connections) {
      if (!isRevoked(conn.actor)) continue;
      logger.info({ user: conn.actor.subject }, 'closing the WebSocket of a revoked session');
      conn.socket.close(wsCloseCodes.sessionRevoked, 'session revoked');
    }
  });

  return {
    close() {
      eventSubscription.close();
      policySubscription.close();
      revocationSubscription.close();
    },
  };
}
