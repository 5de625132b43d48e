import type { IncomingMessage } from 'node:http';
import { unauthorized, type Actor, type Portico } from '@portico/core';
import { readCookie, sessionCookieName } from './cookies.js';

/** The last Authorization header a connection sent, and its token, kept on the socket. */
const LAST_BEARER = Symbol('portico.lastBearer');

type RememberingSocket = NonNullable<IncomingMessage['socket']> & { [LAST_BEARER]?: { header: string; token: string } };

/**
 * The token of an `Authorization: Bearer` header. A keep-alive connection sends the same header request after
 * request: its token is read once per connection, and every request of it hands core the very same string, whose
 * hash the string keeps (a token is a few hundred characters; matching and hashing a new copy on every request
 * was a visible share of a small answer). Any other header is read as it comes.
 */
function bearerToken(req: IncomingMessage, header: string): string {
  const socket = req.socket as RememberingSocket | null;
  const last = socket?.[LAST_BEARER];
  if (last !== undefined && last.header === header) return last.token;
  const match = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header);
  if (!match) throw unauthorized('unsupported Authorization header, use "Bearer <token>"');
  const token = match[1]!;
  if (socket) socket[LAST_BEARER] = { header, token };
  return token;
}

/**
 * The token a request carries: `Authorization: Bearer` wins over the session cookie. An Authorization
 * header of another scheme is an error rather than a silent fall back to the cookie.
 */
function credentialOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header !== undefined) return bearerToken(req, header);
  return readCookie(req, sessionCookieName);
}

/**
 * Bearer token or session cookie → Actor, through the domain's verification; 401 otherwise (thrown at once when
 * the request carries no usable credential, a rejection when the token does not verify). Not an async function:
 * the verification's own promise is the answer, without another one around it.
 */
export function authenticate(portico: Portico, req: IncomingMessage): Promise<Actor> {
  const token = credentialOf(req);
  if (token === undefined) throw unauthorized('authentication required');
  return portico.auth.verifyToken(token);
}
