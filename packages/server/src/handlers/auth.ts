import type * as api from '@portico/api';
import type { Portico } from '@portico/core';
import { clearedSessionCookie, sessionCookie } from '../http/cookies.js';
import { routeHandlers, type Reply } from './types.js';

const setSession = (portico: Portico, reply: Reply, token: string) =>
  reply.setHeader('Set-Cookie', sessionCookie(token, portico.config.tokenTtlSeconds, portico.config.cookieSecure));

/** §2: sign-in, sign-out and the WebSocket ticket. The browser session is the token in an HttpOnly cookie. */
export const authHandlers = routeHandlers({
  localLogin: async ({ portico, body, request, reply }) => {
    const session = await portico.auth.localLogin(body, request);
    setSession(portico, reply, session.token);
    return session;
  },
  tokenExchange: async ({ portico, body, request, reply }) => {
    const session = await portico.auth.tokenExchange(body, request);
    setSession(portico, reply, session.token);
    return session;
  },
  logout: async ({ portico, actor, reply }) => {
    const result = await portico.auth.logout(actor);
    reply.setHeader('Set-Cookie', clearedSessionCookie(portico.config.cookieSecure));
    return result;
  },
  oidcLogin: async ({ portico, query, request, reply }) => {
    reply.redirect(await portico.auth.oidcLogin(query, request));
  },
  oidcCallback: async ({ portico, query, request, reply }) => {
    reply.redirect(await portico.auth.oidcCallback(query, request));
  },
  ssoProviders: ({ portico }) => portico.auth.ssoProviderList(),
  oidcProviders: ({ portico }) => portico.auth.ssoProviders(),
  wsTicket: ({ portico, actor }) => portico.auth.issueTicket(actor),
});
