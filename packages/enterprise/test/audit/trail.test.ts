import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../../src/db/pool.js';
import type { Queryable } from '../../src/audit/db.js';
import { appendBatch, appendBatchReadingConfig, appendEvent, createAuditTrail, newEvent } from '../../src/audit/append.js';
import { readConfig, writeConfig } from '../../src/audit/config.js';
import { exportEvents } from '../../src/audit/export.js';
import { listEvents, getEvent } from '../../src/audit/query.js';
import { applyRetention } from '../../src/audit/retention.js';
import { auditStats } from '../../src/audit/stats.js';
import { verifyChain } from '../../src/audit/verify.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { draft } from './support.js';

const DAY = 86_400_000;

async function text(stream: NodeJS.ReadableStream): Promise<string> {
  let out = '';
  for await (const chunk of stream) out += chunk.toString();
  return out;
}

/** Rewrites a stored row as someone with direct database access would: past the append-only trigger. */
async function tamper(db: TestDatabase, sql: string, values: unknown[]) {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL session_replication_role = replica');
    await client.query(sql, values);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}

/** A database that counts the statements sent through it: what the trail's group commit saves. */
function countingStatements(pool: Queryable) {
  let statements = 0;
  const db: Queryable = {
    query: ((config: never) => {
      statements += 1;
      return pool.query(config);
    }) as Queryable['query'],
  };
  return { db, statements: () => statements };
}

describe('audit trail in PostgreSQL', () => {
  let db: TestDatabase;
  let replicaB: Pool;

  beforeAll(async () => {
    db = await createTestDatabase();
    replicaB = createPool({ url: db.url, schema: db.schema });
  });
  afterAll(async () => {
    await replicaB.end();
    await db.drop();
  });

  it('appends from two replicas at once form one unbroken chain', async () => {
    // Each replica batches what arrives while it writes (group commit); both contend for the chain head.
    const replicas = [createAuditTrail(db.pool), createAuditTrail(replicaB)];
    const writes = Array.from({ length: 120 }, (_, i) => replicas[i % 2]!.append(draft(`u${i % 3}`)));
    await Promise.all(writes);
    const { rows } = await db.pool.query<{ seq: string }>('SELECT seq FROM audit_events ORDER BY seq');
    expect(rows.map((r) => Number(r.seq))).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    expect(await verifyChain(db.pool)).toEqual({ ok: true, checked: 120 });
  });

  it('operations in flight together share statements: a check joins the one on its way, appends queued meanwhile leave together', async () => {
    const counted = countingStatements(db.pool);
    const trail = createAuditTrail(counted.db);
    const before = (await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM audit_events')).rows[0].n;
    const first = trail.append(draft('shared-0'));
    const check = trail.check();
    const rest = Array.from({ length: 9 }, (_, i) => trail.append(draft(`shared-${i + 1}`)));
    expect((await check).enabled).toBe(true);
    const stored = await Promise.all([first, ...rest]);
    expect(counted.statements()).toBe(2);
    const { rows } = await db.pool.query<{ id: string }>('SELECT id FROM audit_events ORDER BY seq OFFSET $1', [before]);
    expect(rows.map((r) => r.id)).toEqual(stored.map((e) => e.id));
    expect((await verifyChain(db.pool)).ok).toBe(true);
  });

  it('appends made in one turn of the event loop, with nothing on its way, leave in one statement', async () => {
    const counted = countingStatements(db.pool);
    const trail = createAuditTrail(counted.db);
    // As when one write batch of the cluster acknowledges many operations at once.
    const stored = await Promise.all(Array.from({ length: 10 }, (_, i) => trail.append(draft(`together-${i}`))));
    expect(counted.statements()).toBe(1);
    const { rows } = await db.pool.query<{ id: string }>('SELECT id FROM audit_events WHERE user_id LIKE $1 ORDER BY seq', ['together-%']);
    expect(rows.map((r) => r.id)).toEqual(stored.map((e) => e.id));
    expect((await verifyChain(db.pool)).ok).toBe(true);
  });

  it('events queued while a statement is on its way leave with those appended in the turn it answers', async () => {
    const counted = countingStatements(db.pool);
    const trail = createAuditTrail(counted.db);
    const check = trail.check();
    const early = Array.from({ length: 3 }, (_, i) => trail.append(draft(`early-${i}`)));
    // Operations that the answer lets run and that append at once, as those whose check it was.
    const late = check.then(() => Promise.all(Array.from({ length: 5 }, (_, i) => trail.append(draft(`late-${i}`)))));
    await Promise.all([...early, late]);
    expect(counted.statements()).toBe(2);
    expect((await verifyChain(db.pool)).ok).toBe(true);
  });

  it('text that JSON escapes (quotes, backslashes, newlines, non-ASCII, emoji) is stored as given and its hash verifies', async () => {
    // A batch travels as the events' canonical texts; the statement both reads the columns from them and hashes them.
    const scratch = await createTestDatabase();
    try {
      const tricky = 'a "quoted" \\ back\\slash\nnew line\t tab é 日本 \u{1F600} </script> \u2028';
      const given = [
        draft(`user ${tricky}`, { name: tricky, project: undefined, userAgent: tricky, details: { input: { body: { text: tricky, list: [1, null, { deep: tricky }] } } } }),
        draft('plain', { namespace: 'ns-1', httpStatus: 201 }),
      ].map((d) => newEvent(d));
      await appendBatch(scratch.pool, given);
      for (const event of given) expect(await getEvent(scratch.pool, event.id)).toEqual(event);
      expect(await verifyChain(scratch.pool)).toEqual({ ok: true, checked: 2 });
    } finally {
      await scratch.drop();
    }
  });

  it('rows cannot be updated through SQL, and a row changed behind the trigger is named by verify', async () => {
    const { rows } = await db.pool.query<{ id: string }>('SELECT id FROM audit_events ORDER BY seq LIMIT 1 OFFSET 40');
    const victim = rows[0].id;
    await expect(db.pool.query("UPDATE audit_events SET user_id = 'mallory' WHERE id = $1", [victim])).rejects.toThrow(/append-only/);
    await tamper(db, "UPDATE audit_events SET details = '{\"input\":{}}' WHERE id = $1", [victim]);
    expect(await verifyChain(db.pool)).toEqual({ ok: false, checked: 41, firstBrokenId: victim });
  });

  it('a row deleted from the middle or the end breaks the chain where it was', async () => {
    const scratch = await createTestDatabase();
    try {
      for (let i = 0; i < 5; i += 1) await appendEvent(scratch.pool, draft('u'));
      const { rows } = await scratch.pool.query<{ id: string }>('SELECT id FROM audit_events ORDER BY seq');
      await scratch.pool.query('DELETE FROM audit_events WHERE id = $1', [rows[4].id]);
      expect(await verifyChain(scratch.pool)).toEqual({ ok: false, checked: 4, firstBrokenId: rows[3].id });
      await scratch.pool.query('DELETE FROM audit_events WHERE id = $1', [rows[1].id]);
      expect(await verifyChain(scratch.pool)).toEqual({ ok: false, checked: 2, firstBrokenId: rows[2].id });
    } finally {
      await scratch.drop();
    }
  });

  it('retention removes whole old days and the rest of the chain still verifies', async () => {
    const scratch = await createTestDatabase();
    try {
      const now = Date.now();
      const todayStart = now - (now % DAY);
      await appendEvent(scratch.pool, draft('old'), todayStart - 40 * DAY);
      await appendEvent(scratch.pool, draft('old'), todayStart - 31 * DAY + 1);
      await appendEvent(scratch.pool, draft('kept'), todayStart - 30 * DAY + 5);
      await appendEvent(scratch.pool, draft('kept'), now);
      expect(await applyRetention(scratch.pool, 30, new Date(now))).toBe(2);
      const { rows } = await scratch.pool.query<{ user_id: string }>('SELECT user_id FROM audit_events ORDER BY seq');
      expect(rows.map((r) => r.user_id)).toEqual(['kept', 'kept']);
      expect(await verifyChain(scratch.pool)).toEqual({ ok: true, checked: 2 });
      expect((await listEvents(scratch.pool, { filter: {}, page: 1, pageSize: 50 })).total).toBe(2);
      expect(await applyRetention(scratch.pool, 30, new Date(now))).toBe(0);
    } finally {
      await scratch.drop();
    }
  });

  it('lists newest first with filters, page numbers and an `after` cursor that agree', async () => {
    const scratch = await createTestDatabase();
    try {
      const now = Date.now();
      for (let i = 0; i < 7; i += 1) await appendEvent(scratch.pool, draft('gina', { action: i % 2 ? 'create' : 'delete' }), now - (7 - i) * 60_000);
      await appendEvent(scratch.pool, draft('hugo', { result: 'denied', httpStatus: 403 }), now);
      await appendEvent(scratch.pool, draft('gina'), now - 3 * DAY);

      const lastHour = { userId: 'gina', from: new Date(now - 3_600_000) };
      const page1 = await listEvents(scratch.pool, { filter: lastHour, page: 1, pageSize: 3 });
      expect(page1.total).toBe(7);
      expect(page1.events.map((e) => e.timestamp)).toEqual([1, 2, 3].map((m) => new Date(now - m * 60_000).toISOString()));
      const page2 = await listEvents(scratch.pool, { filter: lastHour, page: 2, pageSize: 3 });
      const byCursor = await listEvents(scratch.pool, { filter: lastHour, page: 1, pageSize: 3, after: page1.nextCursor });
      expect(byCursor.events).toEqual(page2.events);
      const page3 = await listEvents(scratch.pool, { filter: lastHour, page: 3, pageSize: 3 });
      expect(page3.events).toHaveLength(1);
      expect(page3.nextCursor).toBeUndefined();
      // The total counts the filter, not what is left after a cursor, and a page past the end still says it.
      expect(byCursor.total).toBe(7);
      expect(await listEvents(scratch.pool, { filter: lastHour, page: 4, pageSize: 3 })).toEqual({ events: [], total: 7, page: 4, pageSize: 3 });
      const unfilteredAfter = await listEvents(scratch.pool, { filter: {}, page: 1, pageSize: 2, after: page1.nextCursor });
      expect(unfilteredAfter.total).toBe(9);
      expect(unfilteredAfter.events.map((e) => e.timestamp)).toEqual(page2.events.slice(0, 2).map((e) => e.timestamp));

      const denied = await listEvents(scratch.pool, { filter: { result: 'denied' }, page: 1, pageSize: 10 });
      expect(denied.events.map((e) => e.userId)).toEqual(['hugo']);
      const window = await listEvents(scratch.pool, { filter: { to: new Date(now - 2 * DAY) }, page: 1, pageSize: 10 });
      expect(window.events).toHaveLength(1);
      expect(await getEvent(scratch.pool, denied.events[0].id)).toEqual(denied.events[0]);
      expect(await getEvent(scratch.pool, '01ARZ3NDEKTSV4RRFFQ69G5FAV')).toBeUndefined();

      const stats = await auditStats(scratch.pool, new Date(now));
      expect(stats.totalEvents).toBe(9);
      expect(stats.deniedAttempts).toBe(1);
      expect(stats.topUsers[0]).toEqual({ userId: 'gina', count: stats.eventsToday - 1 });
    } finally {
      await scratch.drop();
    }
  });

  it('exports every matching row as NDJSON and as CSV with formulas defused', async () => {
    const scratch = await createTestDatabase();
    try {
      await appendEvent(scratch.pool, draft('=cmd|calc', { name: 'a,"b"', namespace: 'dev', details: { input: { nested: ['x', 1, null, { deep: 'y\n' }] } } }));
      await appendEvent(scratch.pool, draft('ivy'));
      const ndjson = (await text(await exportEvents(scratch.pool, {}, 'ndjson'))).trim().split('\n').map((l) => JSON.parse(l));
      expect(ndjson.map((e) => e.userId)).toEqual(['ivy', '=cmd|calc']);
      expect(ndjson).toEqual((await listEvents(scratch.pool, { filter: {}, page: 1, pageSize: 10 })).events);
      const csv = await text(await exportEvents(scratch.pool, { userId: '=cmd|calc' }, 'csv'));
      const [header, row] = csv.trim().split('\n');
      expect(header).toBe('id,timestamp,userId,userEmail,sourceIP,userAgent,action,resource,name,project,namespace,requestId,result,httpStatus,details,erased');
      expect(row).toContain(`'=cmd|calc`);
      expect(row).toContain('"a,""b"""');
    } finally {
      await scratch.drop();
    }
  });

  it('an export outlives the pool\'s per-query timeout while its reader is slow', async () => {
    const scratch = await createTestDatabase();
    const impatient = createPool({ url: scratch.url, schema: scratch.schema, statementTimeoutMs: 200 });
    try {
      for (let b = 0; b < 6; b += 1) await appendBatch(scratch.pool, Array.from({ length: 500 }, () => newEvent(draft('bulk'))));
      let lines = 0;
      let paused = false;
      for await (const chunk of await exportEvents(impatient, {}, 'ndjson')) {
        lines += chunk.toString().split('\n').length - 1;
        if (!paused) {
          paused = true;
          await new Promise((r) => setTimeout(r, 1_500));
        }
      }
      expect(lines).toBe(3000);
    } finally {
      await impatient.end();
      await scratch.drop();
    }
  });

  it('configuration is one row every replica reads, with its bounds enforced by the database', async () => {
    expect(await readConfig(db.pool)).toEqual({ enabled: true, retentionDays: 365, maxStreamLength: 100_000, excludeActions: [], excludeResources: [] });
    const next = { enabled: false, retentionDays: 30, maxStreamLength: 5000, excludeActions: ['login'], excludeResources: [] };
    expect(await writeConfig(db.pool, next)).toEqual(next);
    expect(await readConfig(replicaB)).toEqual(next);
    // A client that does not know `maxStreamLength` keeps the stored one.
    expect(await writeConfig(db.pool, { enabled: false, retentionDays: 31, excludeActions: ['login'], excludeResources: [] })).toEqual({ ...next, retentionDays: 31 });
    await expect(writeConfig(db.pool, { ...next, retentionDays: 0 })).rejects.toThrow();
    await expect(writeConfig(db.pool, { ...next, maxStreamLength: 999 })).rejects.toThrow();
    // What the recorder's statement reads with each batch is the same object.
    expect(await appendBatchReadingConfig(db.pool, [newEvent(draft('config-reader'))])).toEqual({ ...next, retentionDays: 31 });
    await writeConfig(db.pool, { enabled: true, retentionDays: 365, maxStreamLength: 100_000, excludeActions: [], excludeResources: [] });
  });
});
