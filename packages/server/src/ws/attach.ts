import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { wsCloseCodes } from '@portico/api';
import { badRequest, createEventAudience, createPrincipals, type Actor, type DomainEvent, type Portico, type Principal } from '@portico/core';
import { WebSocketServer, type WebSocket } from 'ws';
import { frame, handleClientMessage, reply, type Connection } from './connection.js';
import { createAdmission } from './admission.js';
import { rejectUpgrade, shuttingDown, upgradeNotFound } from './handshake.js';
import { createOutbox } from './outbox.js';
import { anyMatches } from './subscriptions.js';
import { textFrame, type WireFrame } from './wire.js';

export interface WebSocketOptions {
  /** Default `/ws`. */
  path?: string;
  /** Protocol ping interval; a peer that did not pong since the previous ping is dropped. Default config.ws.heartbeatMs. */
  heartbeatMs?: number;
  /** A socket with more unsent bytes than this is closed with 1013 instead of queueing more. Default config.ws.maxBufferBytes. */
  maxBufferBytes?: number;
  /** Told of every event frame queued to a socket (the events-sent metric). */
  onEventSent?: (type: string) => void;
  /** Open sockets per user on this server; one more is refused with 429. Default config.ws.maxSocketsPerUser. */
  maxSocketsPerUser?: number;
}

export interface WebSocketHandle {
  /** Closes every socket with 1001 (going away) and stops timers; resolves when they are gone. */
  close(): Promise<void>;
  /** Open sockets right now (operations, tests). */
  connectionCount(): number;
}

/** counts_update frames go out at most this often per connection, however many changes arrive. */
const countsIntervalMs = 250;
/** How long close() waits for peers to answer the close handshake before cutting them off. */
const closeGraceMs = 2_000;
/** Client frames are small JSON (subscribe/ping); anything bigger is not ours. */
const maxClientFrameBytes = 16 * 1024;

const closeCodes = wsCloseCodes;

const timestampOf = (event: DomainEvent) => {
  const t = (event as DomainEvent & { timestamp?: unknown }).timestamp;
  return typeof t === 'string' ? t : new Date().toISOString();
};

/**
 * The live-status WebSocket of contract §7 on an existing HTTP server: ticket authentication at the upgrade,
 * subscriptions, events filtered per socket by current policy at send time, counts, heartbeats, and a bounded
 * send buffer per socket.
 */
export function attachWebSocket(server: http.Server, portico: Portico, opts: WebSocketOptions = {}): WebSocketHandle {
  const path = opts.path ?? '/ws';
  const heartbeatMs = opts.heartbeatMs ?? portico.config.ws.heartbeatMs;
  const maxBufferBytes = opts.maxBufferBytes ?? portico.config.ws.maxBufferBytes;
  const logger = portico.logger.child({ module: 'ws' });
  const admission = createAdmission(portico, { maxSocketsPerUser: opts.maxSocketsPerUser ?? portico.config.ws.maxSocketsPerUser, logger });
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxClientFrameBytes, perMessageDeflate: false, clientTracking: false });
  const connections = new Set<Connection>();
  // Who may receive an event is core's answer; this module only frames, buffers and writes.
  const audience = createEventAudience<Connection>(portico, portico.eventStreams.list());
  const resourceTypes = audience.resourceTypes();
  const principals = createPrincipals();
  const forget = (conn: Connection) => {
    if (!connections.delete(conn)) return;
    audience.remove(conn);
    principals.release(conn.principal);
    admission.release(conn.actor);
  };
  let closing = false;

  // --- sending -------------------------------------------------------------------------------------------

  // Never queue without bound: a consumer that cannot keep up is told to come back later.
  const outbox = createOutbox<Connection>({
    maxBufferBytes,
    onOverflow(conn, buffered) {
      logger.warn({ user: conn.actor.subject, buffered }, 'closing a slow WebSocket consumer');
      conn.socket.close(closeCodes.tryAgainLater, 'too many unsent events: reconnect');
    },
    onError(conn, err) {
      logger.error({ err, user: conn.actor.subject }, 'WebSocket write failed');
    },
  });

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
      opts.onEventSent?.(event.type);
    }
  };

  // --- counts --------------------------------------------------------------------------------------------

  const countsFor = (actor: Actor) => ({
    rgdCount: portico.catalog.count(actor).count,
    instanceCount: portico.instances.count(actor).count,
  });

  const sendCounts = (conn: Connection, counts = countsFor(conn.actor)) => {
    const serialised = JSON.stringify(counts);
    if (serialised === conn.lastCounts) return;
    conn.lastCounts = serialised;
    reply(conn, 'counts_update', counts);
  };

  let countsTimer: NodeJS.Timeout | undefined;
  let lastCountsAt = 0;
  const flushCounts = () => {
    countsTimer = undefined;
    lastCountsAt = Date.now();
    const perPrincipal = new Map<Principal, ReturnType<typeof countsFor>>();
    for (const conn of connections) {
      if (conn.socket.readyState !== conn.socket.OPEN) continue;
      let counts = perPrincipal.get(conn.principal);
      if (!counts) perPrincipal.set(conn.principal, (counts = countsFor(conn.principal.actor)));
      sendCounts(conn, counts);
    }
  };
  /** Coalesces bursts of changes into one counts_update per connection per interval. */
  const scheduleCounts = () => {
    if (countsTimer || closing) return;
    countsTimer = setTimeout(flushCounts, Math.max(0, lastCountsAt + countsIntervalMs - Date.now()));
    countsTimer.unref();
  };

  /** A session revoked while the bus was down: its notice was lost with the gap. */
  const closeIfRevoked = (conn: Connection) =>
    portico.auth.sessionValid(conn.actor).then(
      (valid) => {
        if (!valid) conn.socket.close(closeCodes.sessionRevoked, 'session revoked');
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
    scheduleCounts();
  };

  const eventSubscription = portico.events.onEvent((event) => {
    try {
      if (event.type === 'counts_changed') scheduleCounts();
      else if (event.type === 'resync') resyncAll(event);
      else fanOut(event);
    } catch (err) {
      logger.error({ err, type: event.type }, 'WebSocket fan-out failed');
    }
  });
  // A binding added or removed changes what a user counts (core has already re-read who may see what).
  const policySubscription = audience.onChange(scheduleCounts);

  // A logout, password change or account deletion on any replica ends the sockets of the sessions it cut off.
  const revocationSubscription = portico.auth.onSessionsRevoked((isRevoked) => {
    for (const conn of connections) {
      if (!isRevoked(conn.actor)) continue;
      logger.info({ user: conn.actor.subject }, 'closing the WebSocket of a revoked session');
      conn.socket.close(closeCodes.sessionRevoked, 'session revoked');
    }
  });

  // --- heartbeat -----------------------------------------------------------------------------------------

  const heartbeat = setInterval(() => {
    const now = Date.now();
    for (const conn of connections) {
      if (!conn.alive) {
        logger.debug({ user: conn.actor.subject }, 'dropping a WebSocket peer that did not answer the last ping');
        conn.socket.terminate();
        forget(conn);
        continue;
      }
      if (conn.actor.expiresAt instanceof Date && conn.actor.expiresAt.getTime() <= now) {
        conn.socket.close(closeCodes.policyViolation, 'session expired');
        continue;
      }
      conn.alive = false;
      conn.socket.ping();
    }
  }, heartbeatMs);
  heartbeat.unref();

  // --- connections ---------------------------------------------------------------------------------------

  const onConnection = (socket: WebSocket, actor: Actor) => {
    const conn: Connection = { socket, actor, principal: principals.acquire(actor), subscriptions: new Map(), filters: [], alive: true, outbox };
    connections.add(conn);
    audience.add(conn);
    socket.on('pong', () => {
      conn.alive = true;
    });
    socket.on('message', (data, isBinary) => handleClientMessage(conn, data, isBinary, resourceTypes));
    socket.on('close', () => forget(conn));
    socket.on('error', (err) => logger.debug({ err, user: actor.subject }, 'WebSocket error'));
    sendCounts(conn);
    logger.debug({ user: actor.subject, connections: connections.size }, 'WebSocket connected');
  };

  const onUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      return rejectUpgrade(socket, badRequest('malformed request URL'), req);
    }
    if (url.pathname !== path) return rejectUpgrade(socket, upgradeNotFound(url.pathname), req);
    if (closing) return rejectUpgrade(socket, shuttingDown(), req);
    admission.admit(req, url).then(
      (actor) => {
        let upgraded = false;
        const giveBack = () => {
          if (!upgraded) admission.release(actor);
        };
        if (socket.destroyed) return giveBack();
        if (closing) {
          giveBack();
          return rejectUpgrade(socket, shuttingDown(), req);
        }
        socket.once('close', giveBack);
        wss.handleUpgrade(req, socket, head, (ws) => {
          upgraded = true;
          onConnection(ws, actor);
        });
      },
      (err: unknown) => rejectUpgrade(socket, err, req),
    );
  };
  server.on('upgrade', onUpgrade);

  return {
    connectionCount: () => connections.size,

    async close() {
      if (closing) return;
      closing = true;
      server.off('upgrade', onUpgrade);
      clearInterval(heartbeat);
      clearTimeout(countsTimer);
      eventSubscription.close();
      policySubscription.close();
      revocationSubscription.close();
      audience.close();
      // What the last turn produced still goes out, before the close frames.
      outbox.flush();
      outbox.close();
      const sockets = [...connections].map((conn) => conn.socket);
      const closed = sockets.map((s) => new Promise<void>((resolve) => (s.readyState === s.CLOSED ? resolve() : s.once('close', () => resolve()))));
      for (const s of sockets) s.close(closeCodes.goingAway, 'server shutting down');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(closed), new Promise<void>((resolve) => (timer = setTimeout(resolve, closeGraceMs)))]);
      clearTimeout(timer);
      for (const s of sockets) if (s.readyState !== s.CLOSED) s.terminate();
      connections.clear();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
