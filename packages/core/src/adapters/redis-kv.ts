import { createRequire } from 'node:module';
import type { Redis, RedisOptions } from 'ioredis';

/** ioredis, loaded when a Redis store is opened: a deployment on the in-memory store never needs it. */
const RedisClient = () => (createRequire(import.meta.url)('ioredis') as typeof import('ioredis')).Redis;
import { unavailable } from '../errors.js';
import { createLogger, type Logger } from '../logger.js';
import type { Disposable } from '../ports/cluster.js';
import type { KeyValue } from '../ports/keyvalue.js';

export interface RedisKeyValueOptions {
  /** `host:port` or a `redis://` / `rediss://` URL. */
  address: string;
  /** Prepended to every key and channel, so several deployments (or test runs) can share one Redis. */
  prefix: string;
  logger?: Logger;
  /** Longest a command may take before it fails with SERVICE_UNAVAILABLE (default 1,500 ms). */
  commandTimeoutMs?: number;
}

/** Seconds a client is told to wait when Redis is down. */
const RETRY_AFTER_S = 2;
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

type ScriptedClient = Redis & {
  porticoIncrWindow(key: string, windowMs: number): Promise<[number, number]>;
  porticoThrottle(key: string, limit: number, periodMs: number): Promise<[number, string, string, string]>;
};

/** One ioredis connection plus what we know about its outages, so we fail fast and log once per outage. */
interface Connection {
  client: Redis;
  down: boolean;
  lastError?: Error;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * KeyValue over Redis. Designed for outages: no offline queue, one retry, a command timeout and endless
 * reconnects with capped backoff, so during an outage every call fails quickly with SERVICE_UNAVAILABLE
 * instead of hanging or pretending to succeed, and everything works again once Redis is back.
 */
export function createRedisKeyValue(opts: RedisKeyValueOptions): KeyValue {
  const logger = opts.logger ?? createLogger('silent');
  const timeoutMs = opts.commandTimeoutMs ?? 1500;
  const prefix = opts.prefix;
  let closing = false;

  const options: RedisOptions = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: timeoutMs,
    connectTimeout: Math.max(timeoutMs, 2000),
    retryStrategy: (attempt) => Math.min(100 * 2 ** Math.min(attempt, 8), 5000),
    autoResubscribe: true,
    lazyConnect: false,
  };

  const open = (role: 'commands' | 'subscriptions'): Connection => {
    let client: Redis;
    if (/^rediss?:\/\//.test(opts.address)) client = new (RedisClient())(opts.address, options);
    else {
      const i = opts.address.lastIndexOf(':');
      client = new (RedisClient())({ ...options, host: opts.address.slice(0, i) || '127.0.0.1', port: Number(opts.address.slice(i + 1)) });
    }
    const conn: Connection = { client, down: false };
    const markDown = (reason: string, err?: Error) => {
      if (err) conn.lastError = err;
      if (conn.down || closing) return;
      conn.down = true;
      logger.warn({ role, reason, err: err?.message }, 'redis unavailable, reconnecting in the background');
    };
    client.on('error', (err: Error) => markDown('error', err));
    client.on('close', () => markDown('connection closed'));
    client.on('ready', () => {
      if (conn.down) logger.info({ role }, 'redis connection restored');
      conn.down = false;
      conn.lastError = undefined;
    });
    return conn;
  };

  const cmd = open('commands');
  const sub = open('subscriptions');
  cmd.client.defineCommand('porticoIncrWindow', { numberOfKeys: 1, lua: INCR_WINDOW_LUA });
  cmd.client.defineCommand('porticoThrottle', { numberOfKeys: 1, lua: THROTTLE_LUA });

  /** Waits (bounded) for a connection still being established; fails fast once it is known to be down. */
  const whenReady = (conn: Connection): Promise<void> => {
    if (closing) return Promise.reject(unavailable('redis', RETRY_AFTER_S));
    if (conn.client.status === 'ready') return Promise.resolve();
    if (conn.down) return Promise.reject(unavailable('redis', RETRY_AFTER_S, conn.lastError));
    return new Promise<void>((resolve, reject) => {
      const done = (err?: Error) => {
        clearTimeout(timer);
        conn.client.off('ready', onReady);
        conn.client.off('error', onError);
        if (err) reject(unavailable('redis', RETRY_AFTER_S, err));
        else resolve();
      };
      const onReady = () => done();
      const onError = (err: Error) => done(err);
      const timer = setTimeout(() => done(new Error(`redis not ready within ${timeoutMs} ms`)), timeoutMs);
      conn.client.once('ready', onReady);
      conn.client.once('error', onError);
    });
  };

  const run = async <T>(conn: Connection, what: string, command: (client: Redis) => Promise<T>): Promise<T> => {
    await whenReady(conn);
    try {
      return await withTimeout(command(conn.client), timeoutMs, `redis ${what}`);
    } catch (err) {
      throw unavailable('redis', RETRY_AFTER_S, err);
    }
  };

  interface ChannelState {
    handlers: Set<(message: string) => void>;
    gapHandlers: Set<() => void>;
    subscribed: Promise<void>;
  }
  const channels = new Map<string, ChannelState>();

  // ioredis re-subscribes after a reconnect, but what was published while the connection was down is gone:
  // subscribers that asked are told, so they can make up for it.
  let subscriberWasDown = false;
  sub.client.on('close', () => {
    if (!closing) subscriberWasDown = true;
  });
  sub.client.on('ready', () => {
    if (!subscriberWasDown) return;
    subscriberWasDown = false;
    for (const state of channels.values()) {
      for (const onGap of [...state.gapHandlers]) {
        try {
          onGap();
        } catch (err) {
          logger.error({ err: String(err) }, 'redis key-value: gap handler threw');
        }
      }
    }
  });

  sub.client.on('message', (prefixed: string, message: string) => {
    if (!prefixed.startsWith(prefix)) return;
    for (const handler of [...(channels.get(prefixed.slice(prefix.length))?.handlers ?? [])]) {
      try {
        handler(message);
      } catch (err) {
        logger.error({ err: String(err), channel: prefixed }, 'redis key-value: subscriber threw');
      }
    }
  });

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

    async subscribe(channel, onMessage, onGap): Promise<Disposable> {
      const handler = (message: string) => onMessage(message);
      const gapHandler = onGap ? () => onGap() : undefined;
      let state = channels.get(channel);
      if (!state) {
        const created: ChannelState = {
          handlers: new Set(),
          gapHandlers: new Set(),
          subscribed: run(sub, 'SUBSCRIBE', (c) => c.subscribe(prefix + channel)).then(() => undefined),
        };
        state = created;
        channels.set(channel, created);
        created.subscribed.catch(() => {
          if (channels.get(channel) === created) channels.delete(channel);
        });
      }
      state.handlers.add(handler);
      if (gapHandler) state.gapHandlers.add(gapHandler);
      try {
        await state.subscribed;
      } catch (err) {
        state.handlers.delete(handler);
        if (gapHandler) state.gapHandlers.delete(gapHandler);
        throw err;
      }
      const subscribed = state;
      return {
        close() {
          if (gapHandler) subscribed.gapHandlers.delete(gapHandler);
          if (!subscribed.handlers.delete(handler) || subscribed.handlers.size > 0) return;
          if (channels.get(channel) === subscribed) channels.delete(channel);
          // If Redis is down this fails; a stale subscription only delivers messages nobody listens to.
          if (sub.client.status === 'ready') sub.client.unsubscribe(prefix + channel).catch(() => undefined);
        },
      };
    },

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
