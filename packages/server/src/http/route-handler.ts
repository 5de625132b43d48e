import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteDef } from '@portico/api';
import type { Actor, Portico } from '@portico/core';
import type { Handler, Reply } from '../handlers/types.js';
import { authenticate } from './authenticate.js';
import { rateLimitFor } from './rate-limit.js';
import { sendError } from './errors.js';
import { bodyFor, decodeParams, flattenQuery } from './input.js';
import { requestState } from './request-state.js';
import { sendEmpty, sendJson } from './respond.js';
import type { PathMatcher } from './route-paths.js';
import { parseInput } from '@portico/core';

type PolkaRequest = IncomingMessage & { path: string; query: Record<string, string | string[] | undefined> };

interface ReplyState extends Reply {
  statusCode?: number;
  location?: string;
  headers: Record<string, string>;
}

function createReply(): ReplyState {
  const state: ReplyState = {
    headers: {},
    status: (code) => void (state.statusCode = code),
    setHeader: (name, value) => void (state.headers[name] = value),
    redirect: (location) => void (state.location = location),
  };
  return state;
}

function sendResult(res: ServerResponse, route: RouteDef, reply: ReplyState, result: unknown): void {
  if (reply.location !== undefined) {
    sendEmpty(res, 302, { ...reply.headers, Location: reply.location });
    return;
  }
  const status = reply.statusCode ?? route.status;
  if (result === undefined || status === 204) sendEmpty(res, status, reply.headers);
  else sendJson(res, status, result, reply.headers);
}

/**
 * The per-route pipeline: authenticate (401), validate path, query and body with the route's schemas (400,
 * 413), make the ONE domain call, answer with the route's success status. Every failure, thrown or
 * rejected, goes to the error mapper; nothing escapes to crash the process.
 */
export function routeHandler(portico: Portico, route: RouteDef, handler: Handler, matcher: PathMatcher) {
  return async (req: PolkaRequest, res: ServerResponse) => {
    const { requestId, log, ip } = requestState(req);
    try {
      const actor: Actor | undefined = route.auth === 'user' ? await authenticate(portico, req) : undefined;
      await rateLimitFor(portico.limits, route, { ip, actor }, res);
      const params = route.params ? parseInput(route.params, decodeParams(matcher.match(req.path) ?? {}), 'path') : undefined;
      const rawQuery = flattenQuery(req.query ?? {});
      const query = route.query ? parseInput(route.query, rawQuery, 'query') : undefined;
      const body = await bodyFor(req, route);
      const reply = createReply();
      const result = await handler({ portico, actor: actor as Actor, params, query, body, request: { ip, requestId }, reply });
      sendResult(res, route, reply, result);
    } catch (error) {
      sendError(req, res, error, requestId, log);
    }
  };
}
