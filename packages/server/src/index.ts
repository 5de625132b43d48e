export { createServer, type CreateServerOptions, type PorticoServer, type UpgradeHandle } from './app.js';
export { buildOpenApi, openApiYaml } from './openapi.js';
export { attachWebSocket, type WebSocketOptions, type WebSocketHandle } from './ws/index.js';
