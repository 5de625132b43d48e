import type http from 'node:http';
import { isPorticoError, type Actor, type Logger, type Portico } from '@portico/core';
import { peerFacts, trustedProxySet } from '../http/client-ip.js';
import { actorOfUpgrade, allowedOriginSet, assertOriginAllowed, tooManySockets } from './handshake.js';

/** Who may open a socket: the per-IP lockout, the origin, the ticket, then the user's socket quota. */
interface Admission {
  /** The actor of an upgrade that passed every check, with a socket slot held for it; throws the refusal. */
  admit(req: http.IncomingMessage, url: URL): Promise<Actor>;
  /** Gives a held slot back (the socket closed, or the upgrade never completed). */
  release(actor: Actor): void;
}

/** A refused ticket or origin counts towards the per-IP lockout; a full socket quota or an outage does not. */
const countsAsFailure = (err: unknown) => isPorticoError(err) && (err.code === 'UNAUTHORIZED' || err.code === 'FORBIDDEN');

export function createAdmission(portico: Portico, opts: { maxSocketsPerUser: number; logger: Logger }): Admission {
  const allowedOrigins = allowedOriginSet(portico.config.ws.allowedOrigins);
  const trustedProxies = trustedProxySet(portico.config.trustedProxies);
  const lockout = portico.limits.upgradeLockout;
  // Counted from the moment an upgrade is let through, so parallel upgrades of one user cannot overshoot.
  const socketsPerUser = new Map<string, number>();

  const authenticate = async (req: http.IncomingMessage, url: URL): Promise<Actor> => {
    const { ip } = peerFacts(req, trustedProxies);
    await lockout.assertOpen(ip, '');
    try {
      assertOriginAllowed(req, allowedOrigins);
      return await actorOfUpgrade(portico, url);
    } catch (err) {
      if (countsAsFailure(err)) {
        await lockout.recordFailure(ip, '').catch((e: unknown) => opts.logger.warn({ err: e }, 'could not count a refused upgrade'));
      }
      throw err;
    }
  };

  return {
    async admit(req, url) {
      const actor = await authenticate(req, url);
      const open = socketsPerUser.get(actor.subject) ?? 0;
      if (open >= opts.maxSocketsPerUser) throw tooManySockets(opts.maxSocketsPerUser);
      socketsPerUser.set(actor.subject, open + 1);
      return actor;
    },
    release(actor) {
      const left = (socketsPerUser.get(actor.subject) ?? 1) - 1;
      if (left > 0) socketsPerUser.set(actor.subject, left);
      else socketsPerUser.delete(actor.subject);
    },
  };
}
