import type { IncomingMessage } from 'node:http';

export const sessionCookieName = 'portico_session';

const attributes = (secure: boolean) => `HttpOnly; Path=/api; SameSite=Strict${secure ? '; Secure' : ''}`;

/** Set by login and token exchange; scoped to the API so the explorer and assets never carry it. */
export const sessionCookie = (token: string, maxAgeSeconds: number, secure: boolean) =>
  `${sessionCookieName}=${token}; ${attributes(secure)}; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`;

export const clearedSessionCookie = (secure: boolean) => `${sessionCookieName}=; ${attributes(secure)}; Max-Age=0`;

/** One cookie's value from the `Cookie` header, or undefined. */
export function readCookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return value === '' ? undefined : value;
    }
  }
  return undefined;
}
