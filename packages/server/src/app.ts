import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import polka, { type Middleware, type Request } from 'polka';
import { enterpriseFamilies, routes, type EnterpriseFamily } from '@portico/api';
import type { Portico } from '@portico/core';
import { explorerRoutes } from './explorer/routes.js';
import { handlers } from './handlers/index.js';
import { requestContext } from './http/context.js';
import { editionGate, ossEditionAnswer } from './http/editions.js';
import { methodNotAllowed, routeNotFound, sendError } from './http/errors.js';
import { authenticate } from './http/authenticate.js';
import { trustedProxySet } from './http/client-ip.js';
import { capConnectionsPerIp } from './http/connection-cap.js';
import { rateLimitFor } from './http/rate-limit.js';
import { requestState } from './http/request-state.js';
import { routeHandler } from './http/route-handler.js';
import { createRouter, mergeTables, type RouteTable, type RouterEntry } from './http/router.js';
import { baseSecurityHeaders } from './http/security-headers.js';
import { pluginPortico, pluginRouteTables } from './plugins.js';
import type { ServerPlugin } from './plugin.js';
import type { ServerMetrics } from './metrics/index.js';

export interface UpgradeHandle {
  close(): Promise<void>;
}

export interface CreateServerOptions {
  /** Attaches the WebSocket endpoint to the HTTP server; its close() runs during shutdown. */
  upgrade?: (server: http.Server) => UpgradeHandle;
  /** Records every request for `/metrics` (served on its own port, see metrics/listener.ts). */
  metrics?: Pick<ServerMetrics, 'observe'>;
  /**
   * More route tables, served like the OSS one (the Enterprise edition's entry point): their rows are
   * dispatched by the same router through the same pipeline, and a row marked `enterprise` that one of them
   * gives a handler is served instead of answered by the edition gate.
   */
  routeTables?: readonly RouteTable[];
  /**
   * Edition plugins (the Enterprise module): their route tables are served like `routeTables`, an Enterprise
   * family that their rows serve is no longer answered by the edition gate, their readiness checks join
   * `/readyz`. (Their RBAC rows and operation hooks were given to `createPortico`.)
   */
  plugins?: readonly ServerPlugin[];
}

/** The OSS route table: the contract's rows and one handler per non-Enterprise row. */
const ossRouteTable: RouteTable = { routes, handlers };

export interface PorticoServer {
  server: http.Server;
  listen(host: string, port: number): Promise<AddressInfo>;
  /** Stops accepting, lets in-flight requests finish (up to `config.shutdownTimeoutMs`), closes WebSockets. */
  close(): Promise<void>;
}

/** Every route that is not an Enterprise family must have a handler, or start-up fails. */
function assertHandlers(table: RouteTable): void {
  const missing = table.routes.filter((r) => !table.handlers[r.id]).map((r) => r.id);
  if (missing.length > 0) throw new Error(`no handler for route(s): ${missing.join(', ')}`);
}

/** A malformed request never reaches a handler; it still gets the envelope and the security headers. */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const requestId = randomUUID();
  // Headers or body that did not arrive within the server's bounds (slow-client protection) are a 408.
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const body = JSON.stringify(
    timedOut
      ? { code: 'REQUEST_TIMEOUT', message: 'the request did not arrive in time', details: {}, requestId }
      : { code: 'BAD_REQUEST', message: 'malformed HTTP request', details: {}, requestId },
  );
  const headers = {
    ...baseSecurityHeaders,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Request-ID': requestId,
    Connection: 'close',
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join('\r\n');
  socket.end(`HTTP/1.1 ${timedOut ? '408 Request Timeout' : '400 Bad Request'}\r\n${head}\r\n\r\n${body}`, () => socket.destroy());
}

/**
 * The HTTP face of a Portico: routes from the table of @portico/api, each mapped onto one domain call, and
 * the pipeline of contract §1 around them. Holds no business rule.
 */
export function createServer(ossPortico: Portico, opts: CreateServerOptions = {}): PorticoServer {
  const plugins = opts.plugins ?? [];
  const portico = pluginPortico(ossPortico, plugins);
  const table = mergeTables([ossRouteTable, ...(opts.routeTables ?? []), ...pluginRouteTables(plugins)]);
  assertHandlers(table);
  const served = table.routes;
  // §8: a family that no served row belongs to is answered by the edition gate; a family the plugin's rows
  // serve is the plugin's, unknown paths in it get the ordinary 404/405.
  const servedFamilies = new Set(served.flatMap((r) => (r.family ? [r.family] : [])));
  const gated = Object.entries(enterpriseFamilies).filter(([name]) => !servedFamilies.has(name as never)).map(([, family]) => family);
  const gatedFamilyOf = editionGate(gated);

  const entries: RouterEntry[] = served.map((route) => ({ method: route.method, path: route.path, endpoint: routeHandler(portico, route, table.handlers[route.id]!, table.gates?.[route.id]) }));
  // An edition's explorer describes what it serves (openapi-enterprise.yaml), the OSS build's the OSS table.
  if (portico.config.swaggerUi) entries.push(...explorerRoutes(plugins.find((p) => p.openApi)?.openApi));
  const router = createRouter(entries);

  const onError = (error: unknown, req: Request, res: http.ServerResponse) => {
    let state: { requestId: string; log: Portico['logger'] };
    try {
      state = requestState(req);
    } catch {
      state = { requestId: randomUUID(), log: portico.logger };
    }
    sendError(req, res, error, state.requestId, state.log);
  };

  /** Every path under a gated Enterprise family, any method, any depth: authenticate, then the OSS answer. */
  const answerGated = async (req: Request, res: http.ServerResponse, family: EnterpriseFamily) => {
    const state = requestState(req);
    const { requestId, ip } = state;
    try {
      const actor = await authenticate(portico, req);
      await rateLimitFor(portico.limits, { auth: 'user' }, { ip, actor }, res);
      throw ossEditionAnswer(family, req.path);
    } catch (error) {
      sendError(req, res, error, requestId, state.log);
    }
  };

  const dispatch: Middleware = (req, res) => {
    const family = gatedFamilyOf(req.path);
    if (family) return void answerGated(req, res, family);
    const hit = router.find(req.method ?? 'GET', req.path);
    if (hit) return void hit.endpoint(req, res, hit.params);
    const { requestId, log } = requestState(req);
    const allow = router.allowed(req.path);
    const error = allow.length > 0 ? methodNotAllowed(req.method, req.path, allow) : routeNotFound(req.path);
    sendError(req, res, error, requestId, log);
  };
  // Polka holds no routes: it parses the request (path, query) and hands every request to the router here.
  const app = polka({ onNoMatch: dispatch, onError });

  // The request context runs before polka routes: polka's `use` middleware only sees paths that start with
  // '/', so an absolute-form (`GET http://host/x`) or asterisk-form (`OPTIONS *`) target would otherwise skip
  // it and be answered without a request id or the security headers.
  const context = requestContext(portico);
  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => void app.handler(req as Request, res, undefined as never);
  const metrics = opts.metrics;
  // Slow clients: a request whose headers (or whole body) trickle in is cut off after these bounds instead of
  // holding its connection for minutes; the check runs often enough for the bounds to mean what they say.
  const { headersTimeoutMs, requestTimeoutMs, maxConnectionsPerIp } = portico.config.http;
  // A keep-alive connection whose last in-flight request just finished must not hold shutdown open. One listener
  // function for every response ('close' comes once): no closure, no once-wrapper per request.
  let closing: Promise<void> | undefined;
  const closeIdleIfClosing = () => {
    if (closing) server.closeIdleConnections();
  };
  const server = http.createServer(
    {
      headersTimeout: headersTimeoutMs,
      requestTimeout: Math.max(requestTimeoutMs, headersTimeoutMs),
      connectionsCheckingInterval: Math.min(1_000, headersTimeoutMs),
    },
    (req, res) => {
      res.on('close', closeIdleIfClosing);
      metrics?.observe(req, res);
      context(req, res, handle);
    },
  );
  capConnectionsPerIp(server, { limit: maxConnectionsPerIp, exempt: trustedProxySet(portico.config.trustedProxies) });
  server.on('clientError', answerClientError);
  const upgrade = opts.upgrade?.(server);

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
