// A scratch table of narrow rows (a bigserial key and a ~0.5 KB text, no other index) on its own connection:
// what the floors of bench/audit commit instead of audit events. `drop()` removes it and closes the connection.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export async function narrowTable(databaseUrl, prefix) {
  const table = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`CREATE TABLE ${table} (id bigserial PRIMARY KEY, body text NOT NULL)`);
  const body = randomBytes(400).toString('base64');
  const insert = (rows) => client.query({ name: `${table}-insert`, text: `INSERT INTO ${table} (body) SELECT unnest($1::text[])`, values: [Array(rows).fill(body)] });
  const drop = async () => {
    await client.query(`DROP TABLE ${table}`).catch(() => undefined);
    await client.end();
  };
  return { client, insert, drop };
}
