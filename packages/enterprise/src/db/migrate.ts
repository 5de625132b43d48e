import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { runner } from 'node-pg-migrate';
import { assertSchemaName, type DatabaseConfig } from './pool.js';

/** SQL files `<timestamp>_<name>.sql` with `-- Up Migration` / `-- Down Migration` sections. */
// Built, this module is bundled into dist/ (one level below the package); from source it is src/db/.
export const migrationsDir = ['../migrations', '../../migrations']
  .map((relative) => fileURLToPath(new URL(relative, import.meta.url)))
  .find((dir) => existsSync(join(dir, '..', 'package.json')))!;

export interface MigrateOptions {
  /** Extra folders of migrations (a plugin's own), run in timestamp order together with ours. */
  dirs?: string[];
  /** How long a replica waits for another replica's migration before giving up. */
  lockWaitMs?: number;
  log?: (message: string) => void;
}

/**
 * Brings the schema up to date. Every replica calls this at start; they may start at the same moment.
 * node-pg-migrate's own lock is a *try*-lock on one key for the whole database, so a second replica would
 * fail ("Another migration is already running") and two schemas could not migrate side by side. Instead
 * each replica waits on a blocking advisory lock keyed by the schema, then runs the migrations on that
 * same session: the one that got the lock first applies them, the others find nothing left to do.
 */
export async function migrate(config: Pick<DatabaseConfig, 'url' | 'schema'>, opts: MigrateOptions = {}): Promise<string[]> {
  const schema = assertSchemaName(config.schema);
  const client = new pg.Client({ connectionString: config.url, connectionTimeoutMillis: 5_000, application_name: 'portico-migrate' });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query(`SET lock_timeout = ${Math.max(1, Math.round(opts.lockWaitMs ?? 120_000))}`);
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`portico-migrate:${schema}`]);
    await client.query('SET lock_timeout = 0');
    const applied = await runner({
      dbClient: client,
      // Globs so several folders (ours plus a plugin's) form one ordered history.
      dir: [migrationsDir, ...(opts.dirs ?? [])].map((d) => join(d, '*.sql')),
      useGlob: true,
      direction: 'up',
      migrationsTable: 'pgmigrations',
      schema,
      createSchema: true,
      checkOrder: true,
      noLock: true,
      verbose: false,
      log: opts.log ?? (() => {}),
    });
    return applied.map((m) => m.name);
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`portico-migrate:${schema}`]).catch(() => {});
    await client.end().catch(() => {});
  }
}
