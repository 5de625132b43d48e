import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { RouteDef } from '@portico/api';
import type { Actor, Portico } from '@portico/core';
import type { Call, Handler, Reply, RouteGate } from '../handlers/types.js';
import { requestFactsOf } from './operation.js';
import { authenticate } from './authenticate.js';
import { countsRequests, rateLimitFor } from './rate-limit.js';
import { sendError } from './errors.js';
import { bodyFor, decodeParams, flattenQuery } from './input.js';
import { requestState } from './request-state.js';
import { sendEmpty, sendJson, sendStream } from './respond.js';
import { parseInput, rememberParses, withRequestFacts } from '@portico/core';

type PolkaRequest = IncomingMessage & { path: string; query: Record<string, string | string[] | undefined> };

/**
 * Distinct URLs per route whose parsed path and query are kept, and the longest URL kept: a route's memory stays
 * under about half a MB whatever its (authenticated) callers send; longer URLs are parsed every time.
 */
const REMEMBERED_URLS = 256;
const REMEMBERED_URL_LENGTH = 512;

/**
 * What a handler changed about the response. A class, so its methods live once on the prototype rather than as
 * three new closures per request.
 */
class ReplyState implements Reply {
  statusCode?: number = undefined;
  location?: string = undefined;
  headers: Record<string, string> = {};
  status(code: number): void {
    this.statusCode = code;
  }
  setHeader(name: string, value: string): void {
    this.headers[name] = value;
  }
  redirect(location: string): void {
    this.location = location;
  }
}

/** A value that must be waited for: most handlers answer at once, and awaiting a plain value still costs a turn. */
const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';

function sendResult(res: ServerResponse, route: RouteDef, reply: ReplyState, result: unknown): void {
  if (reply.location !== undefined) {
    sendEmpty(res, 302, { ...reply.headers, Location: reply.location });
    return;
  }
  const status = reply.statusCode ?? route.status;
  if (result === undefined || status === 204) sendEmpty(res, status, reply.headers);
  else if (result instanceof Readable) sendStream(res, status, result, reply.headers);
  else sendJson(res, status, result, reply.headers);
}

/**
 * Whether a route keeps the parsed path and query of the URLs it was asked (path and query are a function of the
 * URL alone: a URL asked again is not validated again). Only routes behind sign-in do: the others' URLs carry
 * one-time secrets (an OIDC callback's code and state), which are kept nowhere.
 */
export const remembersUrls = (route: RouteDef): boolean => route.auth === 'user' && (route.params !== undefined || route.query !== undefined);

/**
 * The per-route pipeline: authenticate (401), validate path, query and body with the route's schemas (400,
 * 413), make the ONE domain call, answer with the route's success status. Every failure, thrown or
 * rejected, goes to the error mapper; nothing escapes to crash the process. A route that names an operation
 * hands the request's facts to it (core runs the operation hooks, whoever calls).
 */
export function routeHandler(portico: Portico, route: RouteDef, handler: Handler, gate?: RouteGate) {
  // Worked out once per route, not per request: whether the route's operation has anyone to hand the request's
  // facts to (no hook, no scope), and which rate-limit bucket (if any) it counts against.
  const operation = route.operation !== undefined && portico.operations.observed;
  const limited = countsRequests(portico.limits, route);
  const signedIn = route.auth === 'user';
  const remembers = remembersUrls(route);
  const remembered = rememberParses<{ params: unknown; query: unknown }>(REMEMBERED_URLS);
  const parseUrl = (req: PolkaRequest, rawParams: Readonly<Record<string, string>>) => {
    const params = route.params ? parseInput(route.params, decodeParams(rawParams), 'path') : undefined;
    const rawQuery = flattenQuery(req.query ?? {});
    return { params, query: route.query ? parseInput(route.query, rawQuery, 'query') : undefined };
  };
  const urlInput = (req: PolkaRequest, rawParams: Readonly<Record<string, string>>) =>
    remembers && req.url!.length <= REMEMBERED_URL_LENGTH ? remembered(req.url!, () => parseUrl(req, rawParams)) : parseUrl(req, rawParams);
  return async (req: IncomingMessage & { path: string }, res: ServerResponse, rawParams: Readonly<Record<string, string>>) => {
    const state = requestState(req);
    const { requestId, ip } = state;
    state.routeId = route.id;
    try {
      const actor: Actor | undefined = signedIn ? await authenticate(portico, req) : undefined;
      if (limited) await rateLimitFor(portico.limits, route, { ip, actor }, res);
      const reply = new ReplyState();
      gate?.(actor, reply);
      const { params, query } = urlInput(req as PolkaRequest, rawParams);
      const pendingBody = bodyFor(req, route);
      const body = isThenable(pendingBody) ? await pendingBody : pendingBody;
      // The values were parsed by this very route's schemas, which is what the handler's types say they are.
      const call = { portico, actor: actor as Actor, params, query, body, request: { ip, requestId }, reply } as unknown as Call<never>;
      const answer = operation ? withRequestFacts(requestFactsOf(route, req, { ip, requestId }), () => handler(call)) : handler(call);
      const result = isThenable(answer) ? await answer : answer;
      sendResult(res, route, reply, result);
    } catch (error) {
      sendError(req, res, error, requestId, state.log);
    }
  };
}
