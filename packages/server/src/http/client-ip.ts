import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';

/** `::ffff:10.0.0.1` and `10.0.0.1` are the same peer. */
export const normalizeIp = (ip: string) => (ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip);

const firstHeader = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(',') : value);

interface PeerFacts {
  /** The address rate limits and logs use. */
  ip: string;
  /** The request reached us over TLS, directly or through a trusted proxy. */
  secure: boolean;
}

/** The configured trusted proxies, normalised once at start-up rather than on every request. */
export const trustedProxySet = (trustedProxies: readonly string[]): ReadonlySet<string> => new Set(trustedProxies.map(normalizeIp));

/**
 * The client address: the socket peer, unless the peer is a trusted proxy, in which case `X-Forwarded-For`
 * is walked from the right (the hop our proxy appended) past every trusted proxy; the first untrusted hop is
 * the client. Taking the left-most entry instead would let any client choose its own address by sending the
 * header itself. `X-Forwarded-Proto` counts only from a trusted peer for the same reason.
 */
export function peerFacts(req: IncomingMessage, trusted: ReadonlySet<string>): PeerFacts {
  const peer = normalizeIp(req.socket.remoteAddress ?? '');
  const tls = Boolean((req.socket as TLSSocket).encrypted);
  if (!trusted.has(peer)) return { ip: peer, secure: tls };

  const hops = (firstHeader(req.headers['x-forwarded-for']) ?? '')
    .split(',')
    .map((h) => normalizeIp(h.trim()))
    .filter((h) => isIP(h) !== 0);
  let ip = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    ip = hops[i];
    if (!trusted.has(hops[i])) break;
  }
  const proto = (firstHeader(req.headers['x-forwarded-proto']) ?? '').split(',')[0].trim().toLowerCase();
  return { ip, secure: tls || proto === 'https' };
}
