import type http from 'node:http';
import type { Socket } from 'node:net';
import { normalizeIp } from './client-ip.js';

/**
 * At most `limit` open connections per peer address, so one client (or one botnet host) holding thousands of
 * slow or idle connections cannot use up the process's sockets and memory while real users wait. Counted on
 * the TCP peer, before a byte is parsed; peers that are trusted proxies are exempt, since every user behind
 * them shares their address (the proxy enforces its own limits). Over the limit, the connection is answered
 * 503 with Retry-After in the contract's envelope and closed.
 */
export function capConnectionsPerIp(server: http.Server, opts: { limit: number; exempt: ReadonlySet<string> }): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const ip = normalizeIp(socket.remoteAddress ?? '');
    if (opts.exempt.has(ip)) return;
    const count = (open.get(ip) ?? 0) + 1;
    if (count > opts.limit) {
      refuse(socket, opts.limit);
      return;
    }
    open.set(ip, count);
    socket.once('close', () => {
      const left = (open.get(ip) ?? 1) - 1;
      if (left > 0) open.set(ip, left);
      else open.delete(ip);
    });
  });
}

function refuse(socket: Socket, limit: number): void {
  const body = JSON.stringify({
    code: 'SERVICE_UNAVAILABLE',
    message: 'too many open connections from this address',
    details: { limit },
    requestId: '',
  });
  socket.on('error', () => socket.destroy());
  // Half-closed, not destroyed: destroying with the client's bytes unread would reset the connection and the
  // client would never see the answer. A client that does not close its side is cut off shortly after.
  socket.end(
    `HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Retry-After: 1\r\nConnection: close\r\n\r\n${body}`,
  );
  setTimeout(() => socket.destroy(), 1_000).unref();
}
