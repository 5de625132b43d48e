import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { createLogger, createPortico, loadConfig, type Portico } from '@portico/core';
import { startServer, type RunningServer } from './server.js';

/** The sample catalog of examples/catalog: namespaces, the `default` and `payments` projects, the RGDs. */
export const sampleCatalog = fileURLToPath(new URL('../../../../examples/catalog', import.meta.url));

export const redisAddress = '127.0.0.1:6379';

/** A key prefix no other test run uses, within PORTICO_REDIS_PREFIX's 64 characters. */
export const uniqueRedisPrefix = () => `portico-test:${process.pid}:${randomUUID()}:`;

export type KeyValueKind = 'memory' | 'redis';

export interface TestPorticoOptions {
  kv?: KeyValueKind;
  /** Only with `kv: 'redis'`; defaults to a fresh unique prefix. */
  redisPrefix?: string;
  /** More variables, applied last. */
  env?: Record<string, string>;
}

/** A real Portico (embedded cluster with the sample catalog) behind the real HTTP server on an ephemeral port. */
export interface TestPortico {
  portico: Portico;
  server: RunningServer;
  url: string;
  adminPassword: string;
  /** A token of the built-in admin (a Server Admin). */
  adminToken: string;
  redisPrefix?: string;
  close(): Promise<void>;
}

/**
 * Starts Portico in the development profile on a temporary data dir. Rate limits are off (`PORTICO_RATE_LIMITS=0`):
 * acceptance tests sign in many users from one IP, and the limits have their own tests.
 */
export async function startTestPortico(opts: TestPorticoOptions = {}): Promise<TestPortico> {
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-acceptance-'));
  const adminPassword = `admin-${randomUUID()}`;
  const redisPrefix = opts.kv === 'redis' ? (opts.redisPrefix ?? uniqueRedisPrefix()) : undefined;
  const config = loadConfig({
    PORTICO_PROFILE: 'development',
    PORTICO_DATA_DIR: dataDir,
    PORTICO_MANIFESTS: sampleCatalog,
    ADMIN_PASSWORD: adminPassword,
    PORTICO_KRO_STEP_MS: '10',
    PORTICO_RATE_LIMITS: '0',
    ...(redisPrefix ? { PORTICO_KV: 'redis', REDIS_ADDRESS: redisAddress, PORTICO_REDIS_PREFIX: redisPrefix } : { PORTICO_KV: 'memory' }),
    ...opts.env,
  });
  let portico: Portico | undefined;
  let server: RunningServer | undefined;
  const close = async () => {
    await server?.close();
    await portico?.stop();
    await rm(dataDir, { recursive: true, force: true });
    if (redisPrefix) await deleteRedisKeys(redisPrefix);
  };
  try {
    portico = await createPortico({ config, logger: createLogger('silent') });
    server = await startServer(portico);
    const adminToken = await login(server.url, 'admin', adminPassword);
    return { portico, server, url: server.url, adminPassword, adminToken, redisPrefix, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Signs in with a local account; fails the test on anything but 200. */
export async function login(url: string, username: string, password: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/auth/local/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (res.status !== 200) throw new Error(`login of ${username} answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

/** Every key under `prefix`, read with SCAN (never KEYS) so a shared Redis is not blocked. */
export async function redisKeys(prefix: string): Promise<string[]> {
  const redis = new Redis(`redis://${redisAddress}`, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    return keys;
  } finally {
    redis.disconnect();
  }
}

export async function deleteRedisKeys(prefix: string): Promise<void> {
  const keys = await redisKeys(prefix);
  if (keys.length === 0) return;
  const redis = new Redis(`redis://${redisAddress}`, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
