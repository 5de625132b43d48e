import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Portico } from '@portico/core';
import { assertDeclaredLength } from './body.js';
import { peerFacts, trustedProxySet } from './client-ip.js';
import { sendError } from './errors.js';
import { requestIdFrom } from './request-id.js';
import { setRequestState } from './request-state.js';
import { applySecurityHeaders } from './security-headers.js';

const probes = new Set(['/healthz', '/readyz']);

/**
 * First step of every request: request id, security headers, client address, a child logger, the access
 * log line, and the up-front Content-Length check. Everything after it can rely on `requestState(req)`.
 */
export function requestContext(portico: Portico) {
  const trustedProxies = trustedProxySet(portico.config.trustedProxies);
  return (req: IncomingMessage & { path?: string }, res: ServerResponse, next: () => void) => {
    const requestId = requestIdFrom(req.headers['x-request-id']);
    const peer = peerFacts(req, trustedProxies);
    res.setHeader('X-Request-ID', requestId);
    applySecurityHeaders(res, { hsts: peer.secure });
    const log = portico.logger.child({ requestId });
    setRequestState(req, { requestId, log, ip: peer.ip, secure: peer.secure });

    const started = performance.now();
    const path = req.path ?? (req.url ?? '').split('?')[0];
    res.once('finish', () => {
      // The path only: query strings can carry one-time codes and OIDC state.
      const line = { method: req.method, path, status: res.statusCode, ms: Math.round(performance.now() - started), ip: peer.ip };
      if (probes.has(path)) log.debug(line, 'request');
      else log.info(line, 'request');
    });

    try {
      assertDeclaredLength(req);
    } catch (error) {
      sendError(req, res, error, requestId, log);
      return;
    }
    next();
  };
}
