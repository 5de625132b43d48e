import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPool, type Pool } from '../../src/db/pool.js';
import { migrate } from '../../src/db/migrate.js';

/** The real PostgreSQL of the test machine (trust auth). */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  url: string;
  schema: string;
  pool: Pool;
  /** Drops the schema and closes the pool. */
  drop(): Promise<void>;
}

/** A schema name no other test run uses. */
export const uniqueSchema = (prefix = 't') => `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;

/** Drops a schema from outside any pool (used after tests, also when the pool under test is broken). */
export async function dropSchema(schema: string, url = TEST_DATABASE_URL): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** A fresh, migrated schema on the real PostgreSQL and a pool whose sessions start in it. */
export async function createTestDatabase(opts: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const schema = uniqueSchema();
  const config = { url: TEST_DATABASE_URL, schema };
  if (opts.migrate !== false) await migrate(config);
  const pool = createPool(config);
  return {
    url: TEST_DATABASE_URL,
    schema,
    pool,
    async drop() {
      await pool.end().catch(() => {});
      await dropSchema(schema);
    },
  };
}
