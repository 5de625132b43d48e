import type { IncomingMessage } from 'node:http';
import { unauthorized, type Actor, type Portico } from '@portico/core';
import { readCookie, sessionCookieName } from './cookies.js';

/**
 * The token a request carries: `Authorization: Bearer` wins over the session cookie. An Authorization
 * header of another scheme is an error rather than a silent fall back to the cookie.
 */
function credentialOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header);
    if (!match) throw unauthorized('unsupported Authorization header, use "Bearer <token>"');
    return match[1];
  }
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
