export { createServer, type CreateServerOptions, type PorticoServer, type UpgradeHandle } from './app.js';
export { buildOpenApi, openApiYaml } from './openapi.js';
