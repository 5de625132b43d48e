import { randomBytes } from 'node:crypto';
import type * as api from '@portico/api';
import type { Actor } from '../actor.js';
import { isPorticoError, unauthorized } from '../errors.js';
import type { KeyValue } from '../ports/keyvalue.js';
import type { Tokens } from './tokens.js';

export const TICKET_TTL_MS = 30_000;
const INVALID_TICKET = 'invalid or expired ticket';
const TICKET_SHAPE = /^[A-Za-z0-9_-]{32,128}$/;

const ticketKey = (ticket: string) => `ticket:${ticket}`;

/** WebSocket tickets: single-use, short-lived, standing in for the token the browser cannot put on `/ws`. */
interface Tickets {
  issue(actor: Actor): Promise<api.WsTicket>;
  redeem(ticket: string): Promise<Actor>;
}

interface StoredTicket {
  actor: Omit<Actor, 'issuedAt' | 'expiresAt'> & { issuedAt: string; expiresAt: string };
  expiresAt: string;
}

export function createTickets(options: { kv: KeyValue; tokens: Pick<Tokens, 'ensureStillValid'>; now: () => number; ttlMs?: number }): Tickets {
  const { kv, tokens, now, ttlMs = TICKET_TTL_MS } = options;

  return {
    async issue(actor) {
      const ticket = randomBytes(32).toString('base64url');
      const expiresAt = new Date(now() + ttlMs).toISOString();
      const stored: StoredTicket = {
        actor: { ...actor, issuedAt: actor.issuedAt.toISOString(), expiresAt: actor.expiresAt.toISOString() },
        expiresAt,
      };
      await kv.set(ticketKey(ticket), JSON.stringify(stored), { ttlMs, ifAbsent: true });
      return { ticket, expiresAt };
    },

    async redeem(ticket) {
      if (typeof ticket !== 'string' || !TICKET_SHAPE.test(ticket)) throw unauthorized(INVALID_TICKET);
      // getdel: the first redemption consumes it, on every replica. KV errors propagate (never pass unchecked).
      const raw = await kv.getdel(ticketKey(ticket));
      if (raw === undefined) throw unauthorized(INVALID_TICKET);
      let stored: StoredTicket;
      try {
        stored = JSON.parse(raw) as StoredTicket;
      } catch {
        throw unauthorized(INVALID_TICKET);
      }
      // The store's TTL may be coarse; the ticket's own expiry is authoritative.
      if (!(Date.parse(stored.expiresAt) > now())) throw unauthorized(INVALID_TICKET);
      const actor: Actor = { ...stored.actor, issuedAt: new Date(stored.actor.issuedAt), expiresAt: new Date(stored.actor.expiresAt) };
      try {
        await tokens.ensureStillValid(actor);
      } catch (e) {
        // Same answer whether the ticket or the token behind it is no good; outages (503) still propagate.
        if (isPorticoError(e) && e.code === 'UNAUTHORIZED') throw unauthorized(INVALID_TICKET);
        throw e;
      }
      return actor;
    },
  };
}
