export * from './embedded-cluster/index.js';
export { createMemoryKeyValue, type MemoryKeyValueOptions } from './memory-kv.js';
export { createRedisKeyValue, type RedisKeyValueOptions } from './redis-kv.js';
