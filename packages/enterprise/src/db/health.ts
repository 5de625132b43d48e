import { unavailable, type Logger } from '@portico/core';
import { DATABASE_RETRY_AFTER, withDatabase } from './outage.js';
import { migrate, type MigrateOptions } from './migrate.js';
import type { DatabaseConfig, Pool } from './pool.js';

export interface Database {
  pool: Pool;
  /** Resolves once migrations have been applied (retried in the background until PostgreSQL answers). */
  migrated(): Promise<void>;
  /** Whether migrations have been applied: until then nothing may read or write the schema. */
  isMigrated(): boolean;
  /**
   * Runs queries on the pool: 503 naming postgres while the schema is not migrated yet or PostgreSQL does
   * not answer (no SQLSTATE, connection classes), any other error unchanged. Every Enterprise store uses it.
   */
  use<T>(run: (pool: Pool) => Promise<T>): Promise<T>;
  /** The `postgres` component of `/readyz`: reachable and migrated. */
  health(): Promise<{ ok: boolean; message?: string }>;
  stop(): Promise<void>;
}

const PROBE_TIMEOUT_MS = 1_500;

/**
 * PostgreSQL for one replica. Start-up does not wait for the database: the process comes up (liveness
 * holds), `/readyz` says `postgres` is not ready, and migrations are retried with backoff until they apply,
 * so a database that starts after Portico, or restarts, needs no restart of Portico.
 */
export function openDatabase(config: DatabaseConfig, pool: Pool, logger: Logger, opts: MigrateOptions & { retryMaxMs?: number } = {}): Database {
  let lastError: string | undefined = 'migrations have not run yet';
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const migrated = new Promise<void>((resolve) => {
    let delay = 250;
    const attempt = async () => {
      if (stopped) return;
      try {
        const applied = await migrate(config, opts);
        if (applied.length > 0) logger.info({ applied, schema: config.schema }, `applied ${applied.length} migration(s)`);
        lastError = undefined;
        resolve();
      } catch (error) {
        lastError = `migrations pending: ${(error as Error).message}`;
        logger.warn({ err: error, retryInMs: delay }, 'PostgreSQL migrations failed; retrying');
        timer = setTimeout(() => void attempt(), delay);
        timer.unref();
        delay = Math.min(delay * 2, opts.retryMaxMs ?? 10_000);
      }
    };
    void attempt();
  });
  // Keep the pending promise from being reported as unhandled when nobody awaits it.
  migrated.catch(() => {});

  return {
    pool,
    migrated: () => migrated,
    isMigrated: () => lastError === undefined,
    use: (run) => (lastError === undefined ? withDatabase(() => run(pool)) : Promise.reject(unavailable('postgres', DATABASE_RETRY_AFTER))),
    async health() {
      if (lastError) return { ok: false, message: lastError };
      let timeout: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          pool.query('SELECT 1'),
          new Promise((_, reject) => {
            timeout = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
          }),
        ]);
        return { ok: true };
      } catch (error) {
        return { ok: false, message: `unreachable: ${(error as Error).message}` };
      } finally {
        clearTimeout(timeout);
      }
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await pool.end().catch(() => {});
    },
  };
}
