export { createServer, type CreateServerOptions, type PorticoServer, type UpgradeHandle } from './app.js';
export { buildOpenApi, openApiYaml, servedRows } from './openapi.js';
export { attachWebSocket, type WebSocketOptions, type WebSocketHandle } from './ws/index.js';
export { pluginHandler, type Handler, type Call, type PluginCall, type PluginInput, type Reply } from './handlers/types.js';
export { type Operation, type OperationHook, type PorticoPlugin } from './plugin.js';
export { runServerBinary, type ServerBinary } from './run-server.js';
export { createServerMetrics, listenForMetrics, type ServerMetrics, type MetricsListener } from './metrics/index.js';
export { pluginEventStreams } from './plugins.js';
