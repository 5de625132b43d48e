import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { wsCloseCodes } from '@portico/api';
import { badRequest, createEventAudience, createPrincipals, type Actor, type Portico } from '@portico/core';
import { WebSocketServer, type WebSocket } from 'ws';
import { handleClientMessage, type Connection } from './connection.js';
import { createAdmission } from './admission.js';
import { createCountsSender } from './counts.js';
import { followEvents } from './event-feed.js';
import { rejectUpgrade, shuttingDown, upgradeNotFound } from './handshake.js';
import { startHeartbeat } from './heartbeat.js';
import { createOutbox } from './outbox.js';

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

/** How long close() waits for peers to answer the close handshake before cutting them off. */
const closeGraceMs = 2_000;
/** Client frames are small JSON (subscribe/ping); anything bigger is not ours. */
const maxClientFrameBytes = 16 * 1024;

const closeCodes = wsCloseCodes;

/**
 * The live-status WebSocket of contract §7 on an existing HTTP server: ticket authentication at the upgrade,
 * subscriptions, events filtered per socket by current policy at send time, counts, heartbeats, and a bounded
 * send buffer per socket. The events are event-feed's, the counts counts', the pings heartbeat's; this file
 * admits and keeps the connections.
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

  const counts = createCountsSender(portico, connections, () => closing);
  const feed = followEvents({ portico, logger, audience, outbox, connections, counts, onEventSent: opts.onEventSent });
  const stopHeartbeat = startHeartbeat(connections, heartbeatMs, logger, forget);

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
    counts.send(conn);
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
      stopHeartbeat();
      counts.stop();
      feed.close();
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
