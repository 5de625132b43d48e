import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, forbidden, type Operation } from '@portico/core';
import type { Pool } from 'pg';
import { writeConfig } from '../../src/audit/config.js';
import type { Queryable } from '../../src/audit/db.js';
import { unknownOutcomeDraft } from '../../src/audit/draft.js';
import { appendEvent, newEvent } from '../../src/audit/append.js';
import { newIntent, writeIntents } from '../../src/audit/intents.js';
import { createAuditRecorder } from '../../src/audit/recorder.js';
import { recoverIntents } from '../../src/audit/recovery.js';
import { createSettler } from '../../src/audit/settle.js';
import { verifyChain } from '../../src/audit/verify.js';
import { createPool } from '../../src/db/pool.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { draft } from './support.js';

const facts = (requestId: string, extra: Partial<Operation> = {}): Operation => ({
  id: 'secrets.create',
  actor: { id: 'gina', email: 'gina@example.com' },
  action: 'create',
  resource: 'secrets',
  name: `s-${requestId}`,
  project: 'alpha',
  namespace: 'dev',
  input: { body: { name: `s-${requestId}`, namespace: 'dev', data: { key: 'the-secret-value' } } },
  secretFields: ['data'],
  request: { requestId, routeId: 'createProjectSecret', successStatus: 201 },
  ...extra,
});

/**
 * The pool the recorder writes through, which a test can take down and bring back: while down, every statement fails
 * as one does when PostgreSQL is gone. `loseAnswerOf(name)` lets the next statement of that name run and then fails
 * it, as when PostgreSQL dies between committing and answering.
 */
function flakyPool(pool: Pool) {
  let down = false;
  const losing = new Set<string>();
  const query = (config: unknown, values?: unknown) => {
    if (down) return Promise.reject(new Error('Connection terminated unexpectedly'));
    const name = (config as { name?: string })?.name;
    const ran = pool.query(config as never, values as never);
    if (name && losing.delete(name)) return ran.then(() => Promise.reject(new Error('Connection terminated unexpectedly')));
    return ran;
  };
  const flaky = new Proxy(pool, { get: (target, key) => (key === 'query' ? query : Reflect.get(target, key)) });
  return {
    pool: flaky,
    setDown: (value: boolean) => {
      down = value;
    },
    loseAnswerOf: (name: string) => losing.add(name),
  };
}

describe('an audit write failing after the operation ran (PostgreSQL gone between intent and record)', () => {
  let db: TestDatabase;
  const rowsOf = async (requestId: string) => (await db.pool.query('SELECT * FROM audit_events WHERE request_id = $1', [requestId])).rows;
  const intents = async () => (await db.pool.query('SELECT id, boot_id, draft FROM audit_intents')).rows;
  const eventually = async <T>(probe: () => Promise<T>, done: (value: T) => boolean): Promise<T> => {
    for (const deadline = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 25))) {
      const value = await probe();
      if (done(value) || Date.now() > deadline) return value;
    }
  };

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db.drop());

  it('a success is answered as a success, its intent stays durable, and its record lands once PostgreSQL answers', async () => {
    const flaky = flakyPool(db.pool);
    const hook = createAuditRecorder({ pool: flaky.pool, logger: createLogger('silent'), retryMinMs: 20, retryMaxMs: 50 });
    const answer = hook(facts('req-after-run'), async () => {
      flaky.setDown(true);
      return 'created';
    });
    await expect(answer).resolves.toBe('created');
    expect(await rowsOf('req-after-run')).toEqual([]);
    // The change is covered meanwhile: its intent is in PostgreSQL, redacted, ready for recovery.
    const [intent] = await intents();
    expect(intent.draft).toMatchObject({ requestId: 'req-after-run', result: 'error', details: { error: { errorCode: 'OUTCOME_UNKNOWN' } } });
    expect(JSON.stringify(intent.draft)).not.toContain('the-secret-value');

    flaky.setDown(false);
    const rows = await eventually(() => rowsOf('req-after-run'), (r) => r.length > 0);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ action: 'create', name: 's-req-after-run', result: 'success', http_status: 201 });
    expect(rows[0].details.input.body.data).toBe('[REDACTED]');
    expect(await intents()).toEqual([]);
  });

  it('an error stays its error: the caller gets what the operation threw, never a 503, and the record says so later', async () => {
    const flaky = flakyPool(db.pool);
    const hook = createAuditRecorder({ pool: flaky.pool, logger: createLogger('silent'), retryMinMs: 20, retryMaxMs: 50 });
    const denial = forbidden('not in this namespace');
    await expect(
      hook(facts('req-denied'), async () => {
        flaky.setDown(true);
        throw denial;
      }),
    ).rejects.toBe(denial);
    flaky.setDown(false);
    const rows = await eventually(() => rowsOf('req-denied'), (r) => r.length > 0);
    expect(rows.map((r) => [r.result, r.http_status, r.details.error.errorCode])).toEqual([['denied', 403, 'FORBIDDEN']]);
  });

  it('a record whose commit was not acknowledged is stored once, however often it is tried again', async () => {
    const flaky = flakyPool(db.pool);
    const hook = createAuditRecorder({ pool: flaky.pool, logger: createLogger('silent'), retryMinMs: 20, retryMaxMs: 50 });
    flaky.loseAnswerOf('portico-audit-settle');
    await expect(hook(facts('req-lost-answer'), async () => 'created')).resolves.toBe('created');
    // The retry finds the intent gone (its settlement committed) and adds nothing; wait until it has run.
    await eventually(async () => (await rowsOf('req-lost-answer')).length, (n) => n > 0);
    await new Promise((r) => setTimeout(r, 200));
    expect(await rowsOf('req-lost-answer')).toHaveLength(1);
    expect(await intents()).toEqual([]);
    expect((await verifyChain(db.pool)).ok).toBe(true);
  });

  it('a late record of an intent that another replica recovered meanwhile adds nothing: one record per operation', async () => {
    const flaky = flakyPool(db.pool);
    const hook = createAuditRecorder({ pool: flaky.pool, logger: createLogger('silent'), bootId: 'replica-a', retryMinMs: 20, retryMaxMs: 50 });
    const answer = hook(facts('req-recovered-first'), async () => {
      flaky.setDown(true);
      return 'created';
    });
    await expect(answer).resolves.toBe('created');
    // Replica B reaches PostgreSQL while replica A does not, and finds the intent old enough (no grace here).
    expect(await recoverIntents(db.pool, { bootId: 'replica-b', graceMs: 0, live: () => [] })).toBe(1);
    flaky.setDown(false);
    await new Promise((r) => setTimeout(r, 300));
    const rows = await rowsOf('req-recovered-first');
    expect(rows.map((r) => [r.result, r.details.error?.errorCode])).toEqual([['error', 'OUTCOME_UNKNOWN']]);
  });

  it('a settlement PostgreSQL refuses on its own does not hold back those queued with it; its intent waits for recovery', async () => {
    const taken = await appendEvent(db.pool, draft('someone'));
    const [first, refused, last] = ['req-q-1', 'req-q-2', 'req-q-3'].map((id) => newIntent(draft('gina', { requestId: id })));
    await writeIntents(db.pool, 'this-replica', [first!, refused!, last!]);
    const done: string[] = [];
    const settler = createSettler({ db: db.pool, logger: createLogger('silent'), done: (id) => done.push(id), retryMinMs: 10 });
    const outage = new Error('Connection terminated unexpectedly');
    settler.later({ intentId: first!.id, event: newEvent(first!.draft) }, outage);
    // Its id is another event's: the trail refuses it, as it would any settlement it cannot store.
    settler.later({ intentId: refused!.id, event: { ...newEvent(refused!.draft), id: taken.id } }, outage);
    settler.later({ intentId: last!.id, event: newEvent(last!.draft) }, outage);
    const handled = await eventually(async () => done.length, (n) => n === 3);
    expect(handled).toBe(3);
    expect((await rowsOf('req-q-1')).length + (await rowsOf('req-q-3')).length).toBe(2);
    expect(await rowsOf('req-q-2')).toEqual([]);
    expect((await intents()).map((i) => i.id)).toEqual([refused!.id]);
    await db.pool.query('DELETE FROM audit_intents');
  });

  it('the settlements waiting in memory are bounded: beyond the bound the oldest go, those without an event first', async () => {
    const gone: Queryable = { query: (() => Promise.reject(new Error('Connection terminated unexpectedly'))) as Queryable['query'] };
    const givenUp: string[] = [];
    const settler = createSettler({ db: gone, logger: createLogger('silent'), done: (id) => givenUp.push(id), maxQueued: 2, retryMinMs: 60_000 });
    const outage = new Error('Connection terminated unexpectedly');
    const recorded = (id: string) => ({ intentId: id, event: newEvent(draft('gina', { requestId: id })) });
    settler.later(recorded('oldest'), outage);
    settler.later({ intentId: 'never-ran' }, outage);
    settler.later(recorded('newer'), outage);
    expect(givenUp).toEqual(['never-ran']);
    settler.later(recorded('newest'), outage);
    expect(givenUp).toEqual(['never-ran', 'oldest']);
  });

  it('an erasure is recorded even when the trail is disabled or excludes it', async () => {
    await writeConfig(db.pool, { enabled: false, retentionDays: 30, excludeActions: ['erase'], excludeResources: ['audit'] });
    try {
      const hook = createAuditRecorder({ pool: db.pool, logger: createLogger('silent') });
      const erase = facts('req-erase', { id: 'audit.erase', action: 'erase', resource: 'audit', name: 'some-event', input: { id: 'some-event', reason: 'leaked' } });
      await expect(hook(erase, async () => 'erased')).resolves.toBe('erased');
      await expect(hook(facts('req-while-disabled'), async () => 'created')).resolves.toBe('created');
    } finally {
      await writeConfig(db.pool, { enabled: true, retentionDays: 30, excludeActions: [], excludeResources: [] });
    }
    expect(await rowsOf('req-erase')).toMatchObject([{ action: 'erase', resource: 'audit', result: 'success' }]);
    expect(await rowsOf('req-while-disabled')).toEqual([]);
    expect(await intents()).toEqual([]);
  });
});

describe('recovery of intents nobody settles (their process died)', () => {
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

  it('records each as an error OUTCOME_UNKNOWN (never a success), once, when two replicas recover at once', async () => {
    const stranded = Array.from({ length: 30 }, (_, i) => newIntent(unknownOutcomeDraft(facts(`req-stranded-${i}`))));
    await writeIntents(db.pool, 'a-process-that-died', stranded);
    const [a, b] = await Promise.all([
      recoverIntents(db.pool, { bootId: 'replica-a', graceMs: 0, live: () => [] }),
      recoverIntents(replicaB, { bootId: 'replica-b', graceMs: 0, live: () => [] }),
    ]);
    expect(a + b).toBe(30);
    const { rows } = await db.pool.query("SELECT request_id, result, http_status, details FROM audit_events WHERE request_id LIKE 'req-stranded-%'");
    expect(rows).toHaveLength(30);
    expect(new Set(rows.map((r) => r.request_id)).size).toBe(30);
    for (const row of rows) {
      expect(row).toMatchObject({ result: 'error', http_status: 0, details: { error: { errorCode: 'OUTCOME_UNKNOWN' } } });
      expect(Number.isNaN(Date.parse(row.details.error.startedAt))).toBe(false);
    }
    expect((await db.pool.query('SELECT count(*)::int AS n FROM audit_intents')).rows[0].n).toBe(0);
    expect((await verifyChain(db.pool)).ok).toBe(true);
  });

  it('leaves alone the intents of operations still running: younger than the grace, or its own process still settling them', async () => {
    const young = newIntent(unknownOutcomeDraft(facts('req-young')));
    await writeIntents(db.pool, 'another-replica', [young]);
    const mine = newIntent(unknownOutcomeDraft(facts('req-mine')));
    await writeIntents(db.pool, 'this-replica', [mine]);
    expect(await recoverIntents(db.pool, { bootId: 'this-replica', graceMs: 60_000, live: () => [] })).toBe(0);
    expect(await recoverIntents(db.pool, { bootId: 'this-replica', graceMs: 0, live: () => [mine.id] })).toBe(1);
    const { rows } = await db.pool.query("SELECT request_id FROM audit_events WHERE request_id IN ('req-young', 'req-mine')");
    expect(rows.map((r) => r.request_id)).toEqual(['req-young']);
    expect((await db.pool.query('SELECT id FROM audit_intents')).rows.map((r) => r.id)).toEqual([mine.id]);
  });
});
