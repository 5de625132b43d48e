import { wsCloseCodes } from '@portico/api';
import type { Logger } from '@portico/core';
import type { Connection } from './connection.js';

/**
 * Protocol pings every `heartbeatMs`: a peer that did not pong since the previous ping is dropped (`forget`),
 * a socket whose session has expired is closed. Returns what stops it.
 */
export function startHeartbeat(connections: ReadonlySet<Connection>, heartbeatMs: number, logger: Logger, forget: (conn: Connection) => void): () => void {
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
        conn.socket.close(wsCloseCodes.policyViolation, 'session expired');
        continue;
      }
      conn.alive = false;
      conn.socket.ping();
    }
  }, heartbeatMs);
  heartbeat.unref();
  return () => clearInterval(heartbeat);
}
