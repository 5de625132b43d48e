import { createRequire } from 'node:module';
import type { Redis, RedisOptions } from 'ioredis';
import { unavailable } from '../errors.js';
import type { Logger } from '../logger.js';

/** ioredis, loaded when a Redis store is opened: a deployment on the in-memory store never needs it. */
const RedisClient = () => (createRequire(import.meta.url)('ioredis') as typeof import('ioredis')).Redis;

/** Seconds a client is told to wait when Redis is down. */
const RETRY_AFTER_S = 2;

/** One ioredis connection plus what we know about its outages, so we fail fast and log once per outage. */
export interface Connection {
  client: Redis;
  down: boolean;
  lastError?: Error;
}

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export interface RedisConnections {
  /** Runs a command on a connection: SERVICE_UNAVAILABLE when it is down, not ready in time or too slow. */
  run<T>(conn: Connection, what: string, command: (client: Redis) => Promise<T>): Promise<T>;
  /** Opens a connection that logs its outages once each. */
  open(role: 'commands' | 'subscriptions'): Connection;
}

/**
 * Connections designed for outages: no offline queue, one retry, a command timeout and endless reconnects with
 * capped backoff, so during an outage every call fails quickly instead of hanging or pretending to succeed.
 */
export function createRedisConnections(address: string, timeoutMs: number, logger: Logger, closing: () => boolean): RedisConnections {
  const options: RedisOptions = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: timeoutMs,
    connectTimeout: Math.max(timeoutMs, 2000),
    retryStrategy: (attempt) => Math.min(100 * 2 ** Math.min(attempt, 8), 5000),
    autoResubscribe: true,
    lazyConnect: false,
  };

  /** Waits (bounded) for a connection still being established; fails fast once it is known to be down. */
  const whenReady = (conn: Connection): Promise<void> => {
    if (closing()) return Promise.reject(unavailable('redis', RETRY_AFTER_S));
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

  return {
    open(role) {
      let client: Redis;
      if (/^rediss?:\/\//.test(address)) client = new (RedisClient())(address, options);
      else {
        const i = address.lastIndexOf(':');
        client = new (RedisClient())({ ...options, host: address.slice(0, i) || '127.0.0.1', port: Number(address.slice(i + 1)) });
      }
      const conn: Connection = { client, down: false };
      const markDown = (reason: string, err?: Error) => {
        if (err) conn.lastError = err;
        if (conn.down || closing()) return;
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
    },

    async run(conn, what, command) {
      await whenReady(conn);
      try {
        return await withTimeout(command(conn.client), timeoutMs, `redis ${what}`);
      } catch (err) {
        throw unavailable('redis', RETRY_AFTER_S, err);
      }
    },
  };
}
