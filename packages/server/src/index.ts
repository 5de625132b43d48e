export { createServer, type CreateServerOptions, type PorticoServer, type UpgradeHandle } from './app.js';
export { buildOpenApi, openApiYaml, servedRows } from './openapi.js';
export { attachWebSocket, type WebSocketOptions, type WebSocketHandle } from './ws/index.js';
export { tableHandlers, type Handler, type Call, type RowCall, type TableHandlers, type Reply, type RouteGate } from './handlers/types.js';
export { type ServerPlugin } from './plugin.js';
export { runServerBinary, type ServerBinary } from './run-server.js';
export { createServerMetrics, listenForMetrics, type ServerMetrics, type MetricsListener } from './metrics/index.js';
