import type { Actor, Portico, Principal } from '@portico/core';
import { reply, type Connection } from './connection.js';

/** counts_update frames go out at most this often per connection, however many changes arrive. */
const countsIntervalMs = 250;

export interface CountsSender {
  /** Sends `conn` its counts, unless they are the ones it was last sent. */
  send(conn: Connection): void;
  /** Coalesces bursts of changes into one counts_update per connection per interval. */
  schedule(): void;
  stop(): void;
}

/** The catalog and instance counts each socket is shown, worked out once per principal per flush. */
export function createCountsSender(portico: Portico, connections: ReadonlySet<Connection>, isClosing: () => boolean): CountsSender {
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

  return {
    send: (conn) => sendCounts(conn),
    schedule() {
      if (countsTimer || isClosing()) return;
      countsTimer = setTimeout(flushCounts, Math.max(0, lastCountsAt + countsIntervalMs - Date.now()));
      countsTimer.unref();
    },
    stop: () => clearTimeout(countsTimer),
  };
}
