import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import polka, { type Middleware, type Request } from 'polka';
import { routes, type RouteDef } from '@portico/api';
import type { Portico } from '@portico/core';
import { explorerRoutes } from './explorer/routes.js';
import { handlers } from './handlers/index.js';
import { requestContext } from './http/context.js';
import { enterpriseFamilyOf, ossEditionAnswer } from './http/editions.js';
import { methodNotAllowed, routeNotFound, sendError } from './http/errors.js';
import { authenticate } from './http/authenticate.js';
import { rateLimitFor } from './http/rate-limit.js';
import { requestState } from './http/request-state.js';
import { routeHandler } from './http/route-handler.js';
import { allowedMethods, compilePath, orderRoutes, toPolkaPath, type PathMatcher } from './http/route-paths.js';
import { baseSecurityHeaders } from './http/security-headers.js';

export interface UpgradeHandle {
  close(): Promise<void>;
}

export interface CreateServerOptions {
  /** Attaches the WebSocket endpoint to the HTTP server; its close() runs during shutdown. */
  upgrade?: (server: http.Server) => UpgradeHandle;
}

export interface PorticoServer {
  server: http.Server;
  listen(host: string, port: number): Promise<AddressInfo>;
  /** Stops accepting, lets in-flight requests finish (up to `config.shutdownTimeoutMs`), closes WebSockets. */
  close(): Promise<void>;
}

/** Every route of the table that is not an Enterprise family must have a handler, or start-up fails. */
function assertHandlers(table: readonly RouteDef[]): void {
  const missing = table.filter((r) => !r.enterprise && !handlers[r.id]).map((r) => r.id);
  if (missing.length > 0) throw new Error(`no handler for route(s): ${missing.join(', ')}`);
  const ungated = table.filter((r) => r.enterprise && !enterpriseFamilyOf(r.path)).map((r) => r.id);
  if (ungated.length > 0) throw new Error(`enterprise route(s) outside every enterprise family: ${ungated.join(', ')}`);
}

/** A malformed request never reaches a handler; it still gets the envelope and the security headers. */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const requestId = randomUUID();
  const body = JSON.stringify({ code: 'BAD_REQUEST', message: 'malformed HTTP request', details: {}, requestId });
  const headers = {
    ...baseSecurityHeaders,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Request-ID': requestId,
    Connection: 'close',
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join('\r\n');
  socket.end(`HTTP/1.1 400 Bad Request\r\n${head}\r\n\r\n${body}`, () => socket.destroy());
}

/**
 * The HTTP face of a Portico: routes from the table of @portico/api, each mapped onto one domain call, and
 * the pipeline of contract §1 around them. Holds no business rule.
 */
export function createServer(portico: Portico, opts: CreateServerOptions = {}): PorticoServer {
  const table = routes as readonly RouteDef[];
  assertHandlers(table);

  const matchers: PathMatcher[] = [];
  const onNoMatch: Middleware = (req, res) => {
    const { requestId, log } = requestState(req);
    const allow = allowedMethods(matchers, req.path);
    const error = allow.length > 0 ? methodNotAllowed(req.method, req.path, allow) : routeNotFound(req.path);
    sendError(req, res, error, requestId, log);
  };
  const onError = (error: unknown, req: Request, res: http.ServerResponse) => {
    let state: { requestId: string; log: Portico['logger'] };
    try {
      state = requestState(req);
    } catch {
      state = { requestId: randomUUID(), log: portico.logger };
    }
    sendError(req, res, error, state.requestId, state.log);
  };
  const app = polka({ onNoMatch, onError });

  // §8: every path under an Enterprise family, any method, any depth: authenticate, then the OSS answer.
  app.use(async (req, res, next) => {
    const family = enterpriseFamilyOf(req.path);
    if (!family) return next();
    const { requestId, log, ip } = requestState(req);
    try {
      const actor = await authenticate(portico, req);
      await rateLimitFor(portico.limits, { auth: 'user' }, { ip, actor }, res);
      throw ossEditionAnswer(family, req.path);
    } catch (error) {
      sendError(req, res, error, requestId, log);
    }
  });

  for (const route of orderRoutes(table.filter((r) => !r.enterprise))) {
    const matcher = compilePath(route.method, route.path);
    matchers.push(matcher);
    app.add(route.method, toPolkaPath(route.path), routeHandler(portico, route, handlers[route.id], matcher) as Middleware);
  }

  if (portico.config.swaggerUi) {
    for (const route of explorerRoutes()) {
      matchers.push(compilePath(route.method, route.path));
      app.add(route.method, route.polkaPath, route.handle as Middleware);
    }
  }

  // The request context runs before polka routes: polka's `use` middleware only sees paths that start with
  // '/', so an absolute-form (`GET http://host/x`) or asterisk-form (`OPTIONS *`) target would otherwise skip
  // it and be answered without a request id or the security headers.
  const context = requestContext(portico);
  const server = http.createServer((req, res) => context(req, res, () => void app.handler(req as Request, res, undefined as never)));
  server.on('clientError', answerClientError);
  const upgrade = opts.upgrade?.(server);

  // A keep-alive connection whose last in-flight request just finished must not hold shutdown open.
  let closing: Promise<void> | undefined;
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) =>
    res.once('close', () => {
      if (closing) server.closeIdleConnections();
    }),
  );
  const close = () =>
    (closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const sockets = upgrade?.close().catch((error: unknown) => portico.logger.error({ err: error }, 'closing WebSockets failed'));
      // Past the grace period, requests still running are cut off; shutdown never waits forever.
      let force: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        force = setTimeout(() => {
          server.closeAllConnections();
          resolve();
        }, portico.config.shutdownTimeoutMs);
      });
      await Promise.race([Promise.all([sockets, stopped]), deadline]);
      clearTimeout(force);
    })());

  const listen = (host: string, port: number) =>
    new Promise<AddressInfo>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve(server.address() as AddressInfo);
      });
    });

  return { server, listen, close };
}
