import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { PorticoError, forbidden, unauthorized, type Actor, type Portico } from '@portico/core';
import { envelopeOf } from '../http/errors.js';
import { baseSecurityHeaders } from '../http/security-headers.js';

/**
 * Who is opening the socket, from the single-use ticket of `POST /api/v1/ws/ticket` (contract §2, §7). A JWT in
 * the URL is refused even when valid: URLs end up in proxy logs and browser history, tickets expire in 30 s and
 * work once.
 */
export async function actorOfUpgrade(portico: Portico, url: URL): Promise<Actor> {
  if (url.searchParams.has('token')) {
    throw unauthorized('tokens are not accepted in the URL: use a ticket from POST /api/v1/ws/ticket');
  }
  const ticket = url.searchParams.get('ticket');
  if (!ticket) throw unauthorized('a ticket is required: GET /ws?ticket=<ticket from POST /api/v1/ws/ticket>');
  return portico.auth.redeemTicket(ticket);
}

/** Answers an upgrade request with a plain HTTP error in the contract's envelope, then drops the socket. */
export function rejectUpgrade(socket: Duplex, error: unknown, req?: IncomingMessage): void {
  if (socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  const requestId = (typeof req?.headers['x-request-id'] === 'string' && req.headers['x-request-id'].slice(0, 128)) || randomUUID();
  const { status, body, headers } = envelopeOf(error, requestId);
  const text = JSON.stringify(body);
  const all: Record<string, string> = {
    ...baseSecurityHeaders,
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    'X-Request-ID': requestId,
    Connection: 'close',
  };
  const head = Object.entries(all).map(([name, value]) => `${name}: ${value.replace(/[\r\n]/g, ' ')}`).join('\r\n');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${head}\r\n\r\n${text}`, () => socket.destroy());
}

export const upgradeNotFound = (path: string) =>
  new PorticoError('NOT_FOUND', `no WebSocket endpoint at ${path}`, { resource: 'route', identifier: path });

export const shuttingDown = () => new PorticoError('SERVICE_UNAVAILABLE', 'the server is shutting down', { component: 'websocket' }, { retryAfter: 1 });

const originOf = (value: string): string | undefined => {
  try {
    const url = new URL(value);
    return url.origin === 'null' ? undefined : url.origin;
  } catch {
    return undefined;
  }
};

/** The browser origins allowed besides the server's own, normalised once (`https://x.example:443` → `https://x.example`). */
export const allowedOriginSet = (configured: readonly string[]): ReadonlySet<string> =>
  new Set(configured.map((o) => originOf(o)).filter((o): o is string => o !== undefined));

/**
 * Cross-site WebSocket hijacking guard. A browser always sends `Origin` on an upgrade, and a page elsewhere
 * must not open a socket with a ticket it obtained (CORS does not apply to WebSockets). Allowed: the server's
 * own origin (the host the request was addressed to) and the configured ones. A request without `Origin`
 * is not from a browser (CLI, SDK, curl) and is allowed: it holds a ticket only its own user gave it.
 */
export function assertOriginAllowed(req: IncomingMessage, allowed: ReadonlySet<string>): void {
  const origin = req.headers.origin;
  if (origin === undefined) return;
  const parsed = originOf(origin);
  if (parsed !== undefined && (allowed.has(parsed) || new URL(parsed).host === req.headers.host)) return;
  throw forbidden('this origin may not open a WebSocket here', { origin: origin.slice(0, 200) });
}

export const tooManySockets = (limit: number) =>
  new PorticoError('RATE_LIMIT_EXCEEDED', `at most ${limit} open WebSockets per user: close one first`, { limit }, { retryAfter: 5 });
