// The Enterprise part of the wire contract (§12): a subpath of its own (`@portico/api/enterprise`)
// so the SDK and the Enterprise server share it while the OSS server, which imports only `@portico/api`,
// never loads it.
export * from './license.js';
export * from './categories.js';
export * from './views.js';
export * from './route-def.js';
export * from './operations.js';
export * from './routes.js';
export * from './audit.js';
export * from './compliance.js';
export * from './compliance-history.js';
