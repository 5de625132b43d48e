import type { IncomingMessage } from 'node:http';
import type { RouteDef } from '@portico/api';
import type { RequestFacts } from '@portico/core';

/**
 * The request's facts for the operation its route row names (core records the operation itself, from the
 * service method's arguments): which row, the request id, the client address and user agent, the success status.
 */
export function requestFactsOf(route: RouteDef, req: IncomingMessage, request: { ip: string; requestId: string }): RequestFacts {
  const userAgent = req.headers['user-agent'];
  return {
    routeId: route.id,
    requestId: request.requestId,
    sourceIP: request.ip,
    userAgent: typeof userAgent === 'string' ? userAgent : '',
    successStatus: route.status,
  };
}
