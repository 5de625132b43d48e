import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { runner } from 'node-pg-migrate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '@portico/core';
import { appendBatch, appendEvent, newEvent } from '../../src/audit/append.js';
import { canonicalEvent, canonicalEventV1, chainHash, detailsDigest } from '../../src/audit/chain.js';
import { exportEvents } from '../../src/audit/export.js';
import { getEvent, listEvents } from '../../src/audit/query.js';
import { createAuditService } from '../../src/audit/service.js';
import type { AuditEvent } from '../../src/audit/types.js';
import { verifyChain } from '../../src/audit/verify.js';
import { createPool, type Pool } from '../../src/db/pool.js';
import { migrate, migrationsDir } from '../../src/db/migrate.js';
import { createTestDatabase, dropSchema, TEST_DATABASE_URL, uniqueSchema, type TestDatabase } from '../support/db.js';
import { draft } from './support.js';

/** Rewrites stored rows as someone with direct database access would: past the append-only trigger. */
async function tamper(pool: Pool, sql: string, values: unknown[]) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL session_replication_role = replica');
    await client.query(sql, values);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}

interface StoredRow {
  id: string;
  prev_hash: string;
  hash: string;
  details_digest: string | null;
  chain_version: number;
}
const stored = async (pool: Pool, id: string) =>
  (await pool.query<StoredRow>('SELECT id, prev_hash, hash, details_digest, chain_version FROM audit_events WHERE id = $1', [id])).rows[0]!;

const actor = (id: string): Actor => ({ id, subject: `user:${id}`, email: `${id}@example.com`, displayName: id, groups: [] }) as unknown as Actor;
const admin = actor('admin');

/** The audit service with an authorizer under which only `admin` may `update` (and everyone may `get`). */
function service(pool: Pool) {
  const authz = { can: (who: Actor, action: string) => action === 'get' || who.id === 'admin' };
  const deps = { pool, authz, vocabulary: { object: (resource: string) => resource } };
  return createAuditService(deps as Parameters<typeof createAuditService>[0]);
}

async function text(stream: NodeJS.ReadableStream): Promise<string> {
  let out = '';
  for await (const chunk of stream) out += chunk.toString();
  return out;
}

describe('erasure keeps the chain verifiable (§12.2)', () => {
  let db: TestDatabase;
  let events: AuditEvent[];
  const secretLeak = 'sk_live_should-never-have-been-recorded';

  beforeAll(async () => {
    db = await createTestDatabase();
    events = [];
    for (let i = 0; i < 6; i += 1) {
      const details = i === 2 ? { input: { body: { note: secretLeak } }, routeId: 'updateProject' } : { input: { body: { n: i } }, routeId: 'updateProject' };
      events.push(await appendEvent(db.pool, draft(`u${i}`, { details })));
    }
  });
  afterAll(async () => db.drop());

  it('rows are written under the digest rule: the digest of their details, and a hash over it', async () => {
    for (const event of events) {
      const row = await stored(db.pool, event.id);
      expect(row.chain_version).toBe(2);
      expect(row.details_digest).toBe(detailsDigest(event.details));
    }
    const [first, second] = [await stored(db.pool, events[0]!.id), await stored(db.pool, events[1]!.id)];
    expect(second.prev_hash).toBe(first.hash);
    expect(second.hash).toBe(chainHash(first.hash, canonicalEvent(events[1]!, detailsDigest(events[1]!.details))));
    expect(await verifyChain(db.pool)).toEqual({ ok: true, checked: 6 });
  });

  it('a Server Admin erases one event\'s details: it answers with `erased`, keeps its digest and hash, and verify still passes', async () => {
    const victim = events[2]!;
    const before = await stored(db.pool, victim.id);
    const erased = await service(db.pool).erase(admin, victim.id, 'an API key pasted into a description');
    expect(erased).toEqual({
      ...victim,
      details: {},
      erased: { at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), by: 'admin', reason: 'an API key pasted into a description' },
    });
    expect(await getEvent(db.pool, victim.id)).toEqual(erased);
    expect(await service(db.pool).get(admin, victim.id)).toEqual(erased);
    const after = await stored(db.pool, victim.id);
    expect(after).toEqual(before);
    expect(await verifyChain(db.pool)).toEqual({ ok: true, checked: 6 });

    // The value is gone from the row, from listings and from both export formats; the erasure shows in each.
    const hits = await db.pool.query(`SELECT 1 FROM audit_events t WHERE row_to_json(t)::text LIKE '%' || $1 || '%'`, [secretLeak]);
    expect(hits.rowCount).toBe(0);
    const listed = (await listEvents(db.pool, { filter: { userId: 'u2' }, page: 1, pageSize: 10 })).events;
    expect(listed).toEqual([erased]);
    const ndjson = (await text(await exportEvents(db.pool, { userId: 'u2' }, 'ndjson'))).trim().split('\n').map((l) => JSON.parse(l) as unknown);
    expect(ndjson).toEqual([erased]);
    const csv = (await text(await exportEvents(db.pool, { userId: 'u2' }, 'csv'))).trim().split('\n');
    expect(csv[0]!.endsWith(',details,erased')).toBe(true);
    expect(csv[1]).toContain('an API key pasted into a description');
    expect(csv[1]).not.toContain(secretLeak);
  });

  it('only `update` on audit may erase; an unknown id is 404; an event is erased once (409)', async () => {
    await expect(service(db.pool).erase(actor('hank'), events[3]!.id, 'mine')).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect((await getEvent(db.pool, events[3]!.id))?.erased).toBeUndefined();
    await expect(service(db.pool).erase(admin, '01ARZ3NDEKTSV4RRFFQ69G5FAV', 'x')).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
    await expect(service(db.pool).erase(admin, events[2]!.id, 'again')).rejects.toMatchObject({ status: 409, code: 'CONFLICT' });
    expect((await getEvent(db.pool, events[2]!.id))?.erased?.reason).toBe('an API key pasted into a description');
  });

  it('through SQL, nothing but an erasure passes the trigger: not another column, not an erased row\'s erasure or details', async () => {
    const [erased, other] = [events[2]!.id, events[3]!.id];
    await expect(db.pool.query("UPDATE audit_events SET user_id = 'mallory' WHERE id = $1", [other])).rejects.toThrow(/append-only/);
    await expect(db.pool.query("UPDATE audit_events SET details = '{}', erased_at = now(), erased_by = 'x', erased_reason = 'y', details_digest = 'z' WHERE id = $1", [other]))
      .rejects.toThrow(/append-only/);
    await expect(db.pool.query("UPDATE audit_events SET details = '{\"input\":1}', erased_at = now(), erased_by = 'x', erased_reason = 'y' WHERE id = $1", [other]))
      .rejects.toThrow(/append-only/);
    await expect(db.pool.query("UPDATE audit_events SET erased_reason = 'rewritten' WHERE id = $1", [erased])).rejects.toThrow(/append-only/);
    await expect(db.pool.query("UPDATE audit_events SET details = '{\"forged\":true}' WHERE id = $1", [erased])).rejects.toThrow(/append-only/);
    expect(await verifyChain(db.pool)).toEqual({ ok: true, checked: 6 });
  });
});

describe('verify still detects every other change, and names the row', () => {
  let db: TestDatabase;
  let ids: string[];

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db.drop());

  /** A fresh trail of `n` events, the third one erased. */
  async function trail(n = 6) {
    await db.pool.query('TRUNCATE audit_events');
    await db.pool.query('UPDATE audit_chain SET seq = 0, hash = repeat(\'0\', 64), prev_hash = repeat(\'0\', 64), anchor_seq = 0, anchor_hash = repeat(\'0\', 64)');
    const events = Array.from({ length: n }, (_, i) => newEvent(draft(`v${i}`, { details: { input: { body: { n: i } } } })));
    await appendBatch(db.pool, events);
    ids = events.map((e) => e.id);
    await service(db.pool).erase(admin, ids[2]!, 'test');
    expect(await verifyChain(db.pool)).toEqual({ ok: true, checked: n });
  }

  it('the details of a row that is not erased, edited in PostgreSQL: that row', async () => {
    await trail();
    await tamper(db.pool, "UPDATE audit_events SET details = '{\"input\":{\"body\":{\"n\":99}}}' WHERE id = $1", [ids[4]]);
    expect(await verifyChain(db.pool)).toEqual({ ok: false, checked: 5, firstBrokenId: ids[4] });
  });

  it('a row\'s details edited AND its digest and own hash recomputed, the next row\'s link left alone: that row', async () => {
    await trail();
    const row = await stored(db.pool, ids[3]!);
    const event = (await getEvent(db.pool, ids[3]!))!;
    const forged = { ...event, details: { input: { body: { n: 'forged' } } } };
    const digest = detailsDigest(forged.details);
    await tamper(db.pool, 'UPDATE audit_events SET details = $2, details_digest = $3, hash = $4 WHERE id = $1', [
      ids[3], forged.details, digest, chainHash(row.prev_hash, canonicalEvent(forged, digest)),
    ]);
    const result = await verifyChain(db.pool);
    expect(result.ok).toBe(false);
    expect(result.firstBrokenId).toBe(ids[3]);
  });

  it('the last row rewritten the same way: it no longer matches the chain head', async () => {
    await trail();
    const last = ids.at(-1)!;
    const row = await stored(db.pool, last);
    const forged = { ...(await getEvent(db.pool, last))!, details: { forged: true } };
    const digest = detailsDigest(forged.details);
    await tamper(db.pool, 'UPDATE audit_events SET details = $2, details_digest = $3, hash = $4 WHERE id = $1', [last, forged.details, digest, chainHash(row.prev_hash, canonicalEvent(forged, digest))]);
    expect(await verifyChain(db.pool)).toEqual({ ok: false, checked: 6, firstBrokenId: last });
  });

  it('a row\'s link to the previous row changed (and its own hash made to agree): that row', async () => {
    await trail();
    const event = (await getEvent(db.pool, ids[4]!))!;
    const row = await stored(db.pool, ids[4]!);
    const otherPrev = 'f'.repeat(64);
    await tamper(db.pool, 'UPDATE audit_events SET prev_hash = $2, hash = $3 WHERE id = $1', [ids[4], otherPrev, chainHash(otherPrev, canonicalEvent(event, row.details_digest!))]);
    expect(await verifyChain(db.pool)).toEqual({ ok: false, checked: 5, firstBrokenId: ids[4] });
    await trail();
    await tamper(db.pool, 'UPDATE audit_events SET prev_hash = $2 WHERE id = $1', [ids[4], otherPrev]);
    expect(await verifyChain(db.pool)).toEqual({ ok: false, checked: 5, firstBrokenId: ids[4] });
  });

  it('a row\'s hash or digest changed, or a row deleted: named', async () => {
    await trail();
    await tamper(db.pool, "UPDATE audit_events SET hash = repeat('a', 64) WHERE id = $1", [ids[1]]);
    expect(await verifyChain(db.pool)).toEqual({ ok: false, checked: 2, firstBrokenId: ids[1] });
    await trail();
    await tamper(db.pool, "UPDATE audit_events SET details_digest = repeat('b', 64) WHERE id = $1", [ids[2]]);
    expect(await verifyChain(db.pool)).toEqual({ ok: false, checked: 3, firstBrokenId: ids[2] });
    await trail();
    await db.pool.query('DELETE FROM audit_events WHERE id = $1', [ids[3]]);
    expect(await verifyChain(db.pool)).toEqual({ ok: false, checked: 4, firstBrokenId: ids[4] });
  });

  it('an erased row given other details, or its erasure undone: named', async () => {
    await trail();
    // Past the constraint too, which holds an erased row's details at {}.
    await tamper(db.pool, "ALTER TABLE audit_events DROP CONSTRAINT audit_events_erasure; UPDATE audit_events SET details = '{\"input\":{\"body\":{\"n\":\"x\"}}}' WHERE id = '" + ids[2] + "'", []);
    expect(await verifyChain(db.pool)).toEqual({ ok: false, checked: 3, firstBrokenId: ids[2] });
    await trail();
    await tamper(db.pool, 'UPDATE audit_events SET erased_at = NULL, erased_by = NULL, erased_reason = NULL WHERE id = $1', [ids[2]]);
    expect(await verifyChain(db.pool)).toEqual({ ok: false, checked: 3, firstBrokenId: ids[2] });
  });
});

describe('the migration moves an existing trail to the digest rule without breaking it', () => {
  const schema = uniqueSchema();
  let pool: Pool;

  /** Applies the migrations up to (not including) the erasure migration, as the previous release left a schema. */
  async function migrateBeforeErasure() {
    const erasure = readdirSync(migrationsDir).find((f) => f.endsWith('_audit_erasure.sql'))!;
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      await runner({
        dbClient: client, dir: join(migrationsDir, '*.sql'), useGlob: true, direction: 'up', migrationsTable: 'pgmigrations', schema, createSchema: true,
        checkOrder: true, noLock: true, verbose: false, log: () => {}, count: Number(erasure.split('_')[0]) - 1, timestamp: true,
      });
    } finally {
      await client.end();
    }
  }

  /** Appends an event as the previous release did: the hash over the details themselves, no digest column. */
  async function appendAsPreviousRelease(event: AuditEvent) {
    const { rows } = await pool.query<{ seq: string; hash: string }>('SELECT seq, hash FROM audit_chain WHERE id = 1');
    const seq = BigInt(rows[0]!.seq) + 1n;
    const hash = chainHash(rows[0]!.hash, canonicalEventV1(event));
    await pool.query(
      `INSERT INTO audit_events (seq, id, ts, user_id, user_email, source_ip, user_agent, action, resource, name, project, namespace, request_id, result,
                                 http_status, details, prev_hash, hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
      [String(seq), event.id, event.timestamp, event.userId, event.userEmail, event.sourceIP, event.userAgent, event.action, event.resource, event.name,
        event.project ?? null, event.namespace ?? null, event.requestId, event.result, event.httpStatus, event.details, rows[0]!.hash, hash],
    );
    await pool.query('UPDATE audit_chain SET seq = $1, hash = $2, prev_hash = $3 WHERE id = 1', [String(seq), hash, rows[0]!.hash]);
  }

  beforeAll(async () => {
    await migrateBeforeErasure();
    pool = createPool({ url: TEST_DATABASE_URL, schema });
  });
  afterAll(async () => {
    await pool.end();
    await dropSchema(schema);
  });

  it('old rows verify by the old rule, new rows by the digest rule, and the link between them holds', async () => {
    const columns = async () => (await pool.query<{ column_name: string }>(
      "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'audit_events'", [schema])).rows.map((r) => r.column_name);
    expect(await columns()).not.toContain('details_digest');
    const old = [newEvent(draft('before-1')), newEvent(draft('before-2', { details: { input: { body: { nested: [1, { b: 'x', a: null }] } } } }))];
    for (const event of old) await appendAsPreviousRelease(event);

    await migrate({ url: TEST_DATABASE_URL, schema });
    expect(await columns()).toEqual(expect.arrayContaining(['chain_version', 'details_digest', 'erased_at', 'erased_by', 'erased_reason']));
    expect(await verifyChain(pool)).toEqual({ ok: true, checked: 2 });
    const fresh = await appendEvent(pool, draft('after-1'));
    const rows = (await pool.query<StoredRow>('SELECT id, prev_hash, hash, details_digest, chain_version FROM audit_events ORDER BY seq')).rows;
    expect(rows.map((r) => r.chain_version)).toEqual([1, 1, 2]);
    expect(rows[2]!.prev_hash).toBe(rows[1]!.hash);
    expect(await verifyChain(pool)).toEqual({ ok: true, checked: 3 });

    // A new row can be erased; an old one cannot (its hash covers its details), and says why.
    await service(pool).erase(admin, fresh.id, 'test');
    await expect(service(pool).erase(admin, old[1]!.id, 'test')).rejects.toMatchObject({ status: 409, message: expect.stringMatching(/before erasure existed/) });
    expect(await verifyChain(pool)).toEqual({ ok: true, checked: 3 });

    // An old row is still covered by the old rule: its details edited, it is named.
    await tamper(pool, "UPDATE audit_events SET details = '{}' WHERE id = $1", [old[1]!.id]);
    expect(await verifyChain(pool)).toEqual({ ok: false, checked: 2, firstBrokenId: old[1]!.id });
  });
});
