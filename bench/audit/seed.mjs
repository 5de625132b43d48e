// Bulk rows for bench/audit: 1,000,000 audit events over the last 30 days in one INSERT … SELECT from
// generate_series (no client round trip per row). Ids are real ULIDs whose time part is the row's timestamp,
// like the ones the server writes; 100 users, so "one user, last 24 h" is a few hundred rows. The seeded rows
// carry placeholder hashes (the chain head moves past them); the benchmark measures reads, not `verify`.

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** The 10-character time part of a ULID from a millisecond expression, as plain SQL (no function call per row). */
const ulidTime = (ms) =>
  Array.from({ length: 10 }, (_, i) => `substr('${ALPHABET}', ((${ms} >> ${5 * (9 - i)}) & 31)::int + 1, 1)`).join(' || ');

export async function seedAuditRows(client, rows, { days = 30, users = 100 } = {}) {
  // Secondary indexes are built once after the load (far faster than 1M single inserts each), from their own
  // definitions, so the benchmark queries exactly the indexes the migration created.
  const { rows: indexes } = await client.query(
    `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'audit_events'
        AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid = 'audit_events'::regclass)`,
  );
  for (const index of indexes) await client.query(`DROP INDEX ${index.indexname}`);
  const spanMs = days * 86_400_000;
  const { rows: head } = await client.query('SELECT seq FROM audit_chain WHERE id = 1');
  const base = Number(head[0].seq);
  await client.query(
    `INSERT INTO audit_events (seq, id, ts, user_id, user_email, source_ip, user_agent, action, resource, name, project, namespace,
                               request_id, result, http_status, details, prev_hash, hash)
     SELECT $1::bigint + g, ${ulidTime('t.ms')} || upper(lpad(to_hex(g), 16, '0')), to_timestamp(t.ms / 1000.0),
            'user-' || (g % $4), 'user-' || (g % $4) || '@example.com', '10.0.' || (g % 250) || '.1', 'bench',
            (ARRAY['create', 'update', 'delete', 'login', 'member_add'])[1 + g % 5], (ARRAY['projects', 'instances', 'session'])[1 + g % 3],
            'obj-' || (g % 5000), 'proj-' || (g % 40), 'ns-' || (g % 40), md5(g::text),
            CASE WHEN g % 50 = 0 THEN 'denied' ELSE 'success' END, CASE WHEN g % 50 = 0 THEN 403 ELSE 200 END,
            jsonb_build_object('routeId', 'bench', 'input', jsonb_build_object('n', g)), repeat('0', 64), md5(g::text) || md5(g::text)
       FROM generate_series(1, $2::bigint) AS g,
            LATERAL (SELECT (extract(epoch FROM now()) * 1000)::bigint - 60000 - (($2::bigint - g) * $3::bigint / $2::bigint) AS ms) AS t`,
    [base, rows, spanMs, users],
  );
  await client.query('UPDATE audit_chain SET seq = $1 WHERE id = 1', [base + rows]);
  for (const index of indexes) await client.query(index.indexdef);
  await client.query('ANALYZE audit_events');
}
