export * from './errors.js';
export * from './actor.js';
export * from './config.js';
export * from './logger.js';
export * from './ports/cluster.js';
export * from './ports/keyvalue.js';
export * from './types.js';
export * from './cluster/informer-types.js';
