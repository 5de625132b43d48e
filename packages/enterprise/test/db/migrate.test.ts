import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { migrate } from '../../src/db/migrate.js';
import { createPool } from '../../src/db/pool.js';
import { TEST_DATABASE_URL, dropSchema, uniqueSchema } from '../support/db.js';

const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

describe('migrations', () => {
  it('two replicas migrating an empty schema at the same moment both succeed and each migration runs once', async () => {
    const schema = uniqueSchema('mig');
    schemas.push(schema);
    const config = { url: TEST_DATABASE_URL, schema };
    const [a, b] = await Promise.all([migrate(config), migrate(config)]);
    // One replica applied everything, the other found nothing left to do.
    expect([a.length, b.length].sort()).toEqual([0, a.length + b.length]);
    expect(a.length + b.length).toBeGreaterThan(0);
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query(`SELECT name, count(*)::int AS n FROM "${schema}".pgmigrations GROUP BY name`);
      expect(rows.length).toBe(a.length + b.length);
      expect(rows.every((r) => r.n === 1)).toBe(true);
    } finally {
      await client.end();
    }
  });

  it('the pool works inside the configured schema without naming it', async () => {
    const schema = uniqueSchema('mig');
    schemas.push(schema);
    await migrate({ url: TEST_DATABASE_URL, schema });
    const pool = createPool({ url: TEST_DATABASE_URL, schema });
    try {
      await pool.query("INSERT INTO user_activity (user_id) VALUES ('user:alice')");
      const { rows } = await pool.query(`SELECT user_id FROM "${schema}".user_activity`);
      expect(rows).toEqual([{ user_id: 'user:alice' }]);
    } finally {
      await pool.end();
    }
  });

  it('rejects a schema name that is not a plain identifier before touching the database', async () => {
    await expect(migrate({ url: TEST_DATABASE_URL, schema: 'x; DROP TABLE y' })).rejects.toThrow(/PORTICO_DB_SCHEMA/);
  });
});
