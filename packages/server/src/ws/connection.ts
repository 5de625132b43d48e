import { ClientMessage, type ServerEventType, type SubscriptionFilter } from '@portico/api';
import { jsonText, type Actor, type Principal } from '@portico/core';
import type { WebSocket } from 'ws';
import type { Batch, Outbox, Recipient } from './outbox.js';
import { filterKey } from './subscriptions.js';
import { textFrame } from './wire.js';

/** Enough for any UI (a few views at once); bounds the work one socket adds to every event. */
const maxSubscriptions = 100;

/** One open socket: who it is, what it asked for, whether it answered the last ping. */
export interface Connection extends Recipient {
  socket: WebSocket;
  actor: Actor;
  /** Who the socket is in policy, shared with the other sockets of the same user. */
  principal: Principal;
  subscriptions: Map<string, SubscriptionFilter>;
  /** `subscriptions`' values, kept as an array so matching an event allocates nothing. */
  filters: SubscriptionFilter[];
  alive: boolean;
  /** The counts_update last sent, serialised, so an unchanged count is not sent again. */
  lastCounts?: string;
  /** Where event frames wait for the end of the turn; replies queue behind them there to keep the order. */
  outbox: Outbox<Connection>;
  batch?: Batch;
}

/** `{"type","timestamp","data"}`; the data's JSON is the text it carries when it has one (an instance's, made once). */
export function frame(type: ServerEventType, data: unknown, timestamp = new Date().toISOString()): string {
  if (data === undefined || data === null || typeof data !== 'object') return JSON.stringify({ type, timestamp, data });
  return `{"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(timestamp)},"data":${jsonText(data)}}`;
}

/**
 * Sends a frame meant for this socket only (replies, errors, counts); broadcast frames go through the fan-out.
 * While event frames wait in the outbox for this socket, the reply waits behind them, so the client sees
 * frames in the order the server produced them (no `unsubscribed` before an event matched while subscribed).
 */
export function reply(conn: Connection, type: ServerEventType, data: unknown): void {
  if (conn.socket.readyState !== conn.socket.OPEN) return;
  const text = frame(type, data);
  if (conn.batch !== undefined) conn.outbox.push(conn, textFrame(text));
  else conn.socket.send(text);
}

const syncFilters = (conn: Connection) => {
  conn.filters = [...conn.subscriptions.values()];
};

const replyError = (conn: Connection, code: string, message: string) => reply(conn, 'error', { code, message });

/**
 * Parses and answers one client frame: subscribe, unsubscribe, ping; anything else is an error frame.
 * `resourceTypes`: what this server serves (the built-in types plus the edition's streams, `all`).
 */
export function handleClientMessage(conn: Connection, raw: Buffer | ArrayBuffer | Buffer[], isBinary: boolean, resourceTypes: readonly string[]): void {
  if (isBinary) return replyError(conn, 'INVALID_MESSAGE', 'messages must be JSON text frames');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.isBuffer(raw) ? raw.toString('utf8') : Buffer.concat(Array.isArray(raw) ? raw : [Buffer.from(raw)]).toString('utf8'));
  } catch {
    return replyError(conn, 'INVALID_MESSAGE', 'message is not valid JSON');
  }
  const candidate = parsed as { type?: unknown; data?: { resourceType?: unknown } };
  if (
    (candidate?.type === 'subscribe' || candidate?.type === 'unsubscribe') &&
    !resourceTypes.includes(candidate.data?.resourceType as string)
  ) {
    return replyError(conn, 'INVALID_RESOURCE_TYPE', `resourceType must be one of: ${resourceTypes.join(', ')}`);
  }
  const message = ClientMessage.safeParse(parsed);
  if (!message.success) {
    const issue = message.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    return replyError(conn, 'INVALID_MESSAGE', `invalid message: ${where}${issue?.message ?? 'unknown shape'}`);
  }
  const msg = message.data;
  switch (msg.type) {
    case 'ping':
      return reply(conn, 'pong', {});
    case 'subscribe': {
      const key = filterKey(msg.data);
      if (!conn.subscriptions.has(key) && conn.subscriptions.size >= maxSubscriptions) {
        return replyError(conn, 'INVALID_MESSAGE', `at most ${maxSubscriptions} subscriptions per connection`);
      }
      conn.subscriptions.set(key, msg.data);
      syncFilters(conn);
      return reply(conn, 'subscribed', { ...msg.data, success: true });
    }
    case 'unsubscribe':
      conn.subscriptions.delete(filterKey(msg.data));
      syncFilters(conn);
      return reply(conn, 'unsubscribed', msg.data);
  }
}
