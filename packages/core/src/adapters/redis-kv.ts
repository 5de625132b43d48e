import type { Redis } from 'ioredis';
import { createLogger, type Logger } from '../logger.js';
import type { KeyValue } from '../ports/keyvalue.js';
import { createRedisChannels } from './redis-channels.js';
import { createRedisConnections, withTimeout } from './redis-connection.js';

export interface RedisKeyValueOptions {
  /** `host:port` or a `redis://` / `rediss://` URL. */
  address: string;
  /** Prepended to every key and channel, so several deployments (or test runs) can share one Redis. */
  prefix: string;
  logger?: Logger;
  /** Longest a command may take before it fails with SERVICE_UNAVAILABLE (default 1,500 ms). */
  commandTimeoutMs?: number;
}

const HEALTH_TIMEOUT_MS = 1000;

/** INCR, start the window on the first hit (or on a counter that somehow has no TTL), report the TTL left. */
const INCR_WINDOW_LUA = `
local count = redis.call('INCR', KEYS[1])
if count == 1 or redis.call('PTTL', KEYS[1]) < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return {count, redis.call('PTTL', KEYS[1])}
`;

/**
 * gcraStep (limits/gcra.ts) in Lua, on Redis's clock so replicas with skewed clocks share one bucket. The
 * stored value is the theoretical arrival time in ms; replies are strings so fractions survive.
 */
const THROTTLE_LUA = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local limit = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local interval = period / limit
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
local nextTat = tat + interval
local allowAt = nextTat - period
if allowAt > now + 1e-6 then
  return {0, '0', tostring(allowAt - now), tostring(tat - now)}
end
redis.call('SET', KEYS[1], string.format('%.3f', nextTat), 'PX', math.ceil(nextTat - now))
return {1, tostring(math.floor((period - (nextTat - now)) / interval + 1e-6)), '0', tostring(nextTat - now)}
`;

/** Set (with a TTL) or delete the key only while it still holds the expected value: a lease's renewal and release. */
const COMPARE_AND_SET_LUA = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) return 1 end
if tonumber(ARGV[3]) > 0 then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) else redis.call('SET', KEYS[1], ARGV[2]) end
return 1
`;

type ScriptedClient = Redis & {
  porticoIncrWindow(key: string, windowMs: number): Promise<[number, number]>;
  porticoThrottle(key: string, limit: number, periodMs: number): Promise<[number, string, string, string]>;
  porticoCompareAndSet(key: string, expected: string, value: string, ttlMs: number): Promise<number>;
};

/**
 * KeyValue over Redis. Designed for outages: no offline queue, one retry, a command timeout and endless
 * reconnects with capped backoff, so during an outage every call fails quickly with SERVICE_UNAVAILABLE
 * instead of hanging or pretending to succeed, and everything works again once Redis is back. The connections
 * are redis-connection's, pub/sub redis-channels'.
 */
export function createRedisKeyValue(opts: RedisKeyValueOptions): KeyValue {
  const logger = opts.logger ?? createLogger('silent');
  const timeoutMs = opts.commandTimeoutMs ?? 1500;
  const prefix = opts.prefix;
  let closing = false;
  const isClosing = () => closing;

  const { open, run } = createRedisConnections(opts.address, timeoutMs, logger, isClosing);
  const cmd = open('commands');
  const sub = open('subscriptions');
  cmd.client.defineCommand('porticoIncrWindow', { numberOfKeys: 1, lua: INCR_WINDOW_LUA });
  cmd.client.defineCommand('porticoThrottle', { numberOfKeys: 1, lua: THROTTLE_LUA });
  cmd.client.defineCommand('porticoCompareAndSet', { numberOfKeys: 1, lua: COMPARE_AND_SET_LUA });
  const channels = createRedisChannels(sub, run, prefix, logger, isClosing);

  return {
    async get(key) {
      return (await run(cmd, 'GET', (c) => c.get(prefix + key))) ?? undefined;
    },

    async set(key, value, { ttlMs, ifAbsent } = {}) {
      const args: (string | number)[] = [prefix + key, value];
      if (ttlMs !== undefined && ttlMs > 0) args.push('PX', Math.ceil(ttlMs));
      if (ifAbsent) args.push('NX');
      const reply = await run(cmd, 'SET', (c) => c.call('SET', ...args));
      return reply === 'OK';
    },

    async getdel(key) {
      return (await run(cmd, 'GETDEL', (c) => c.getdel(prefix + key))) ?? undefined;
    },

    async del(key) {
      await run(cmd, 'DEL', (c) => c.del(prefix + key));
    },

    async compareAndSet(key, expected, value, { ttlMs } = {}) {
      // A value of '' stands for "delete": a lease value is never empty.
      const ttl = value !== undefined && ttlMs !== undefined && ttlMs > 0 ? Math.ceil(ttlMs) : 0;
      const done = await run(cmd, 'compareAndSet', (c) => (c as ScriptedClient).porticoCompareAndSet(prefix + key, expected, value ?? '', ttl));
      return Number(done) === 1;
    },

    async incrWindow(key, windowMs) {
      const [count, ttl] = await run(cmd, 'incrWindow', (c) => (c as ScriptedClient).porticoIncrWindow(prefix + key, Math.ceil(windowMs)));
      return { count: Number(count), resetMs: Math.max(0, Number(ttl)) };
    },

    async throttle(key, limit, periodMs) {
      const [allowed, remaining, retryAfterMs, resetMs] = await run(cmd, 'throttle', (c) => (c as ScriptedClient).porticoThrottle(prefix + key, limit, periodMs));
      return { allowed: allowed === 1, remaining: Number(remaining), retryAfterMs: Number(retryAfterMs), resetMs: Number(resetMs) };
    },

    async publish(channel, message) {
      await run(cmd, 'PUBLISH', (c) => c.publish(prefix + channel, message));
    },

    subscribe: channels.subscribe,

    async health() {
      if (cmd.client.status !== 'ready') return { ok: false, message: `redis ${cmd.client.status}: ${cmd.lastError?.message ?? 'not connected'}` };
      try {
        await withTimeout(cmd.client.ping(), HEALTH_TIMEOUT_MS, 'redis PING');
        return { ok: true };
      } catch (err) {
        return { ok: false, message: (err as Error).message };
      }
    },

    async close() {
      closing = true;
      channels.clear();
      await Promise.all(
        [cmd, sub].map(async ({ client }) => {
          if (client.status === 'ready') {
            try {
              await withTimeout(client.quit(), HEALTH_TIMEOUT_MS, 'redis QUIT');
              return;
            } catch {
              /* fall through to a hard disconnect */
            }
          }
          client.disconnect();
        }),
      );
    },
  };
}
