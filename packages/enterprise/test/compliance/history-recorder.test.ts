import { ossRbacVocabulary } from '@portico/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, type Authorizer } from '@portico/core';
import { createPool, type Pool } from '../../src/db/pool.js';
import { createHistoryRecorder, type HistoryRecorder } from '../../src/compliance/history/recorder.js';
import { applyHistoryRetention } from '../../src/compliance/history/retention.js';
import { countHistory, listHistory } from '../../src/compliance/history/query.js';
import { historyRetentionDays } from '../../src/compliance/history/config.js';
import { loadEnterpriseConfig } from '../../src/config.js';
import { createHistoryModule } from '../../src/compliance/history/index.js';
import { until } from '../../../core/test/support/eventually.js';
import type { CurrentViolation, ViolationChange } from '../../src/compliance/history/change.js';
import { openViolations } from '../../src/compliance/history/write.js';
import type { Queryable } from '../../src/audit/db.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

const logger = createLogger('silent');
const DAY = 86_400_000;
const T0 = Date.parse('2026-11-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

function violation(name: string, opts: Partial<CurrentViolation> & { seen?: number } = {}): CurrentViolation {
  return {
    key: `K8sRequiredLabels/need-team/Deployment/dev/${name}#0`,
    constraintKind: 'K8sRequiredLabels',
    constraintName: 'need-team',
    resource: { kind: 'Deployment', namespace: 'dev', name, apiGroup: 'apps' },
    message: `you must provide labels: {"team"} (${name})`,
    enforcementAction: 'dryrun',
    project: 'alpha',
    observedAt: at(opts.seen ?? 0),
    ...opts,
  };
}
const add = (v: CurrentViolation, seen: number, extra: Partial<ViolationChange> = {}): ViolationChange => ({ ...v, action: 'add', observedAt: at(seen), ...extra });
const del = (v: CurrentViolation, seen: number): ViolationChange => ({ ...v, action: 'delete', observedAt: at(seen) });

interface Row {
  key: string;
  status: string;
  first_seen: Date;
  resolved_at: Date | null;
  enforcement_action: string;
}
const rowsOf = async (pool: Pool) =>
  (await pool.query<Row>('SELECT key, status, first_seen, resolved_at, enforcement_action FROM violation_history ORDER BY id')).rows;

/** Two replicas of the history: two pools (two connections' worth of sessions) on one schema. */
describe('violation history recorder on PostgreSQL', () => {
  let db: TestDatabase;
  let poolB: Pool;
  const recorders: HistoryRecorder[] = [];
  let inForce: CurrentViolation[] = [];
  const replica = (pool: Pool) => {
    const r = createHistoryRecorder({ pool, logger, current: () => inForce, retryMs: 50 });
    recorders.push(r);
    return r;
  };
  /** An empty history and two replicas writing to it, each through a pool of its own. */
  const twoReplicas = async () => {
    await db.pool.query('TRUNCATE violation_history');
    return [replica(db.pool), replica(poolB)] as const;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    poolB = createPool({ url: db.url, schema: db.schema });
  });
  afterAll(async () => {
    for (const r of recorders) r.stop();
    await poolB.end();
    await db.drop();
  });

  it('two replicas recording the same changes write one row per episode; a violation that comes back is a new row', async () => {
    const [a, b] = await twoReplicas();
    const web = violation('web');
    const api = violation('api');
    // Each replica sees the same changes, a few milliseconds apart (its own observedAt), at the same moment.
    const changes = (lag: number) => [add(web, 0 + lag), add(api, 10 + lag), del(web, 1000 + lag), add(web, 5000 + lag)];
    for (const [ca, cb] of changes(0).map((c, i) => [c, changes(3)[i]])) {
      a.record(ca);
      b.record(cb);
    }
    await Promise.all([a.flushed(), b.flushed()]);
    const rows = await rowsOf(db.pool);
    expect(rows.map((r) => [r.key.split('/')[4], r.status])).toEqual([
      ['web#0', 'resolved'],
      ['api#0', 'active'],
      ['web#0', 'active'],
    ]);
    expect(rows[0].first_seen.toISOString()).toBe(at(0));
    expect(rows[0].resolved_at?.toISOString()).toMatch(new RegExp(`^${at(1000).slice(0, 20)}`));
  });

  it('a whole episode written by the later replica first is backdated by the earlier one\'s copy, and only that episode', async () => {
    const [a, b] = await twoReplicas();
    const web = violation('web');
    b.record(add(web, 3));
    b.record(del(web, 1003));
    b.record(add(web, 5003));
    await b.flushed();
    a.record(add(web, 0));
    a.record(del(web, 1000));
    a.record(add(web, 5000));
    await a.flushed();
    const rows = await rowsOf(db.pool);
    expect(rows.map((r) => [r.status, r.first_seen.toISOString(), r.resolved_at?.toISOString() ?? null])).toEqual([
      ['resolved', at(0), at(1003)],
      ['active', at(5000), null],
    ]);
  });

  it('a copy that commits second but was observed first moves first seen back; a later copy leaves it alone', async () => {
    const [a, b] = await twoReplicas();
    const web = violation('web');
    b.record(add(web, 3));
    await b.flushed();
    a.record(add(web, 0));
    await a.flushed();
    b.record(add(web, 7));
    await b.flushed();
    const rows = await rowsOf(db.pool);
    expect(rows.map((r) => [r.status, r.first_seen.toISOString(), r.enforcement_action])).toEqual([['active', at(0), 'dryrun']]);
  });

  it('another replica\'s write landing between a replica\'s two statements still leaves the earliest first seen', async () => {
    // A replica's add is two statements; whatever another replica commits between them must not cost the row
    // the earlier observation. The later copy (B, seen at 3) is written in that gap, every time.
    await db.pool.query('TRUNCATE violation_history');
    const web = violation('web');
    let statements = 0;
    const replicaA: Queryable = {
      query: (async (...args: Parameters<Queryable['query']>) => {
        const result = await (db.pool.query as (...a: unknown[]) => Promise<unknown>)(...args);
        if (++statements === 1) await openViolations(poolB, [violation('web', { seen: 3 })]);
        return result;
      }) as Queryable['query'],
    };
    await openViolations(replicaA, [{ ...web, observedAt: at(0) }]);
    expect(statements).toBe(2);
    const rows = await rowsOf(db.pool);
    expect(rows.map((r) => [r.status, r.first_seen.toISOString()])).toEqual([['active', at(0)]]);
  });

  it('concurrent writers racing on 200 violations still leave exactly one active row each', async () => {
    const [a, b] = await twoReplicas();
    const many = Array.from({ length: 200 }, (_, i) => violation(`app-${i}`));
    for (const v of many) {
      a.record(add(v, 1));
      b.record(add(v, 2));
    }
    await Promise.all([a.flushed(), b.flushed()]);
    for (const v of many) {
      b.record(del(v, 100));
      a.record(del(v, 101));
    }
    await Promise.all([a.flushed(), b.flushed()]);
    const { rows } = await db.pool.query<{ n: string; resolved: string }>(
      "SELECT count(*) AS n, count(*) FILTER (WHERE status = 'resolved') AS resolved FROM violation_history",
    );
    expect(rows[0]).toEqual({ n: '200', resolved: '200' });
  });

  it('a late copy of an add (a slow replica) does not reopen an episode already resolved, and a late delete leaves a new episode alone', async () => {
    const [fast, slow] = await twoReplicas();
    const web = violation('web');
    fast.record(add(web, 0));
    fast.record(del(web, 1000));
    await fast.flushed();
    slow.record(add(web, 40)); // saw the same add 40 ms later, but writes it after the resolution
    await slow.flushed();
    fast.record(add(web, 9000)); // it came back
    await fast.flushed();
    slow.record(del(web, 1040)); // the slow replica's copy of the first delete
    await slow.flushed();
    expect((await rowsOf(db.pool)).map((r) => r.status)).toEqual(['resolved', 'active']);
  });

  it('an add of an active violation carries an enforcement change; an older copy of it does not undo a newer one', async () => {
    await db.pool.query('TRUNCATE violation_history');
    const a = replica(db.pool);
    const web = violation('web');
    a.record(add(web, 0));
    a.record(add(web, 500, { enforcementAction: 'deny' }));
    a.record(add(web, 400, { enforcementAction: 'warn' }));
    await a.flushed();
    const rows = await rowsOf(db.pool);
    expect(rows.map((r) => [r.status, r.enforcement_action, r.first_seen.toISOString()])).toEqual([['active', 'deny', at(0)]]);
  });

  it('on start, a reconcile resolves what ended while no replica was recording and opens what began', async () => {
    await db.pool.query('TRUNCATE violation_history');
    const before = replica(db.pool);
    const [web, api, db1] = [violation('web'), violation('api'), violation('db')];
    before.record(add(web, 0));
    before.record(add(api, 0));
    await before.flushed();
    before.stop();
    // Down for a while: web was fixed, db appeared; api is still in force.
    inForce = [api, { ...db1, observedAt: at(DAY) }];
    const now = new Date(T0 + DAY);
    const after = createHistoryRecorder({ pool: db.pool, logger, current: () => inForce, now: () => now });
    recorders.push(after);
    await after.reconcile();
    const rows = await rowsOf(db.pool);
    expect(rows.map((r) => [r.key.split('/')[4], r.status, r.resolved_at?.toISOString() ?? null])).toEqual([
      ['web#0', 'resolved', now.toISOString()],
      ['api#0', 'active', null],
      ['db#0', 'active', null],
    ]);
    await after.reconcile();
    expect(await rowsOf(db.pool)).toEqual(rows);
  });

  it('the module reconciles only once the index has synced and sees Gatekeeper: an index still empty does not resolve everything', async () => {
    await db.pool.query('TRUNCATE violation_history');
    const first = replica(db.pool);
    const web = violation('web');
    first.record(add(web, 0));
    await first.flushed();
    let synced!: () => void;
    let installed = false;
    const module = createHistoryModule({
      pool: db.pool, authz: {} as Authorizer, vocabulary: ossRbacVocabulary, logger, retentionDays: 90,
      violations: { current: () => [], onViolationChange: () => ({ close() {} }) },
      synced: new Promise<void>((resolve) => (synced = resolve)),
      installed: () => installed,
      installedPollMs: 20,
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      synced();
      await new Promise((resolve) => setTimeout(resolve, 200));
      // Synced, but Gatekeeper not (yet) seen: an empty index says nothing about the recorded violations.
      expect((await rowsOf(db.pool)).map((r) => r.status)).toEqual(['active']);
      installed = true;
      await until(async () => (await rowsOf(db.pool))[0].status === 'resolved', 'resolved by the reconcile once installed');
    } finally {
      await module.stop?.();
    }
  });

  it('a batch PostgreSQL refuses (not an outage) does not block later changes: a reconcile takes its place', async () => {
    await db.pool.query('TRUNCATE violation_history');
    const web = violation('web');
    const api = violation('api');
    inForce = [web, api];
    const r = createHistoryRecorder({ pool: db.pool, logger, current: () => inForce, retryMs: 50 });
    recorders.push(r);
    r.record(add({ ...violation('bad'), message: 'a NUL \u0000 PostgreSQL text cannot hold' }, 0));
    r.record(add(web, 0));
    await until(async () => (await rowsOf(db.pool)).length === 2, 'the in-force violations recorded by the reconcile');
    await r.flushed();
    r.record(add(violation('later'), 10));
    await r.flushed();
    expect((await rowsOf(db.pool)).map((row) => row.key.split('/')[4]).sort()).toEqual(['api#0', 'later#0', 'web#0']);
    inForce = [];
  });

  it('keeps changes while PostgreSQL refuses writes and writes them, in order, once it answers', async () => {
    await db.pool.query('TRUNCATE violation_history');
    const broken = createPool({ url: 'postgres://postgres@127.0.0.1:1/test', schema: db.schema, connectTimeoutMs: 200 });
    let pool: Pool = broken;
    const switching = new Proxy({} as Pool, { get: (_, key) => Reflect.get(pool, key).bind(pool) });
    const r = createHistoryRecorder({ pool: switching, logger, current: () => inForce, retryMs: 100 });
    recorders.push(r);
    const web = violation('web');
    r.record(add(web, 0));
    r.record(del(web, 10));
    r.record(add(web, 20));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await rowsOf(db.pool)).toEqual([]);
    pool = db.pool;
    await r.flushed();
    expect((await rowsOf(db.pool)).map((row) => row.status)).toEqual(['resolved', 'active']);
    await broken.end();
  });

  it('retention deletes resolved records older than retentionDays, never active ones', async () => {
    await db.pool.query('TRUNCATE violation_history');
    const a = replica(db.pool);
    const [old, recent, active] = [violation('old'), violation('recent'), violation('active')];
    a.record(add(old, 0));
    a.record(add(recent, 0));
    a.record(add(active, 0));
    a.record(del(old, DAY));
    a.record(del(recent, 80 * DAY));
    await a.flushed();
    const now = new Date(T0 + 100 * DAY);
    const all = { all: true } as const;
    expect(await countHistory(db.pool, all, { status: 'all' })).toBe(3);
    expect(await applyHistoryRetention(db.pool, 90, now)).toBe(1);
    expect(await applyHistoryRetention(db.pool, 90, now)).toBe(0);
    const left = await listHistory(db.pool, all, { status: 'all' }, 1, 10);
    expect(left.items.map((i) => [i.resourceName, i.status]).sort()).toEqual([['active', 'active'], ['recent', 'resolved']]);
  });

  it('PORTICO_COMPLIANCE_RETENTION_DAYS: 90 by default, a whole number of days from 1 to 3650, anything else names the variable', () => {
    expect(historyRetentionDays({})).toBe(90);
    expect(historyRetentionDays({ PORTICO_COMPLIANCE_RETENTION_DAYS: '30' })).toBe(30);
    for (const bad of ['0', '3651', '7d', '1.5', '-3']) expect(() => historyRetentionDays({ PORTICO_COMPLIANCE_RETENTION_DAYS: bad })).toThrow(/PORTICO_COMPLIANCE_RETENTION_DAYS/);
    const env = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' };
    expect(loadEnterpriseConfig(env).complianceRetentionDays).toBe(90);
    expect(loadEnterpriseConfig({ ...env, PORTICO_COMPLIANCE_RETENTION_DAYS: '14' }).complianceRetentionDays).toBe(14);
    expect(() => loadEnterpriseConfig({ ...env, PORTICO_COMPLIANCE_RETENTION_DAYS: 'forever' })).toThrow(/PORTICO_COMPLIANCE_RETENTION_DAYS/);
  });
});

describe('violation history queries', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
    const r = createHistoryRecorder({ pool: db.pool, logger, current: () => [] });
    r.record(add(violation('a1', { project: 'alpha' }), 0));
    r.record(add(violation('b1', { project: 'beta', enforcementAction: 'deny' }), 1000));
    r.record(add(violation('none', { project: undefined, constraintName: 'other' }), 2000));
    r.record(del(violation('a1', { project: 'alpha' }), 3 * DAY));
    r.record(add(violation('a2', { project: 'alpha' }), 5 * DAY));
    await r.flushed();
  });
  afterAll(() => db.drop());

  it('filters by window, status, enforcement, constraint and resource; pages newest first; scope limits to projects', async () => {
    const all = { all: true } as const;
    const names = async (filter: Parameters<typeof listHistory>[2], scope: Parameters<typeof listHistory>[1] = all) =>
      (await listHistory(db.pool, scope, filter, 1, 50)).items.map((i) => i.resourceName);
    expect(await names({ status: 'all' })).toEqual(['a2', 'none', 'b1', 'a1']);
    expect(await names({ status: 'resolved' })).toEqual(['a1']);
    expect(await names({ status: 'active', enforcement: 'deny' })).toEqual(['b1']);
    // In force during day 4: a1 was resolved on day 3, a2 began on day 5.
    expect(await names({ status: 'all', since: new Date(T0 + 4 * DAY), until: new Date(T0 + 4.5 * DAY) })).toEqual(['none', 'b1']);
    expect(await names({ status: 'all', until: new Date(T0 + 500) })).toEqual(['a1']);
    expect(await names({ status: 'all', constraint: { kind: 'K8sRequiredLabels', name: 'other' } })).toEqual(['none']);
    expect(await names({ status: 'all', resource: { kind: 'Deployment', namespace: 'dev', name: 'b1' } })).toEqual(['b1']);
    expect(await names({ status: 'all' }, { all: false, projects: ['alpha'] })).toEqual(['a2', 'a1']);
    expect(await names({ status: 'all' }, { all: false, projects: [] })).toEqual([]);
    const page2 = await listHistory(db.pool, all, { status: 'all' }, 2, 3);
    expect(page2).toMatchObject({ total: 4, page: 2, pageSize: 3 });
    expect(page2.items.map((i) => i.resourceName)).toEqual(['a1']);
    expect(page2.items[0]).toEqual({
      key: 'K8sRequiredLabels/need-team/Deployment/dev/a1#0', constraintKind: 'K8sRequiredLabels', constraintName: 'need-team',
      resourceKind: 'Deployment', resourceNamespace: 'dev', resourceName: 'a1', enforcementAction: 'dryrun',
      message: 'you must provide labels: {"team"} (a1)', firstSeen: at(0), resolvedAt: at(3 * DAY), status: 'resolved',
    });
  });
});
