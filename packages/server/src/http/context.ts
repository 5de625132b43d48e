import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger, Portico } from '@portico/core';
import { assertDeclaredLength } from './body.js';
import { peerFacts, trustedProxySet } from './client-ip.js';
import { sendError } from './errors.js';
import { requestIdFrom } from './request-id.js';
import { setRequestState, type RequestState } from './request-state.js';
import { applySecurityHeaders } from './security-headers.js';

const probes = new Set(['/healthz', '/readyz']);

/**
 * The request's state, its child logger made on first use: most requests log nothing at the usual levels, and
 * a child logger per request was a measurable share of answering one. A class, so the lazy getter lives once on
 * the prototype: an object literal with a getter built a new accessor (and closure) on every request.
 */
class LazyRequestState implements RequestState {
  routeId?: string = undefined;
  unavailable?: string = undefined;
  #log: Logger | undefined = undefined;
  constructor(
    private readonly logger: Logger,
    readonly requestId: string,
    readonly ip: string,
    readonly secure: boolean,
  ) {}
  get log(): Logger {
    return (this.#log ??= this.logger.child({ requestId: this.requestId }));
  }
}

/** The access log line of one request, written when its response is done. */
function logAccess(logger: Logger, req: IncomingMessage & { path?: string }, res: ServerResponse, state: RequestState): void {
  const path = req.path ?? (req.url ?? '').split('?')[0];
  const level = probes.has(path) ? 'debug' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  const started = performance.now();
  res.once('finish', () => {
    // The path only: query strings can carry one-time codes and OIDC state.
    const line = { method: req.method, path, status: res.statusCode, ms: Math.round(performance.now() - started), ip: state.ip };
    state.log[level](line, 'request');
  });
}

/**
 * First step of every request: request id, security headers, client address, a child logger, the access
 * log line, and the up-front Content-Length check. Everything after it can rely on `requestState(req)`.
 */
export function requestContext(portico: Portico) {
  const trustedProxies = trustedProxySet(portico.config.trustedProxies);
  // `next` is handed the request and response, so the caller passes one function for every request, not a closure.
  return (req: IncomingMessage & { path?: string }, res: ServerResponse, next: (req: IncomingMessage, res: ServerResponse) => void) => {
    const requestId = requestIdFrom(req.headers['x-request-id']);
    const peer = peerFacts(req, trustedProxies);
    res.setHeader('X-Request-ID', requestId);
    applySecurityHeaders(res, { hsts: peer.secure });
    const state = new LazyRequestState(portico.logger, requestId, peer.ip, peer.secure);
    setRequestState(req, state);

    // No listener at all when the line would not be written; probes log at debug, below info.
    if (portico.logger.isLevelEnabled('info')) logAccess(portico.logger, req, res, state);

    try {
      assertDeclaredLength(req);
    } catch (error) {
      sendError(req, res, error, requestId, state.log);
      return;
    }
    next(req, res);
  };
}
