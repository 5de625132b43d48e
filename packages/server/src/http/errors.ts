import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorEnvelope } from '@portico/api';
import { PorticoError, isPorticoError, type Logger } from '@portico/core';
import { discardRemainingBody } from './body.js';
import { findRequestState } from './request-state.js';
import { sendJson } from './respond.js';

/**
 * The one place an error becomes a response. A PorticoError keeps its code, status, message and details;
 * anything else is a bug or an outage we did not classify, so the caller gets a fixed 500 and the log gets
 * the error with the request id (never the other way round).
 */
export function envelopeOf(error: unknown, requestId: string): { status: number; body: ErrorEnvelope; headers: Record<string, string> } {
  if (isPorticoError(error)) {
    const headers: Record<string, string> = { ...(error.headers ?? {}) };
    if (error.retryAfter !== undefined) headers['Retry-After'] = String(Math.max(0, Math.ceil(error.retryAfter)));
    return {
      status: error.status,
      body: { code: error.code, message: error.message, details: error.details ?? {}, requestId },
      headers,
    };
  }
  return {
    status: 500,
    body: { code: 'INTERNAL_ERROR', message: 'internal error', details: {}, requestId },
    headers: {},
  };
}

export function sendError(req: IncomingMessage, res: ServerResponse, error: unknown, requestId: string, log: Logger): void {
  if (!isPorticoError(error)) log.error({ err: error, requestId }, 'unhandled error');
  else if (error.status >= 500) log.warn({ err: error, requestId, code: error.code }, error.message);
  discardRemainingBody(req);
  if (res.headersSent) {
    // Too late for an envelope: end what was started so the client is not left hanging.
    res.end();
    return;
  }
  const { status, body, headers } = envelopeOf(error, requestId);
  const state = findRequestState(req);
  if (state && body.code === 'SERVICE_UNAVAILABLE') state.unavailable = String((body.details as { component?: unknown }).component ?? 'unknown');
  sendJson(res, status, body, headers);
}

export const routeNotFound = (path: string) =>
  new PorticoError('NOT_FOUND', `no route for ${path}`, { resource: 'route', identifier: path });

export const methodNotAllowed = (method: string, path: string, allow: string[]) =>
  new PorticoError('METHOD_NOT_ALLOWED', `method ${method} is not allowed on ${path}`, { method, allowed: allow }, { headers: { Allow: allow.join(', ') } });
