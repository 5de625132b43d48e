import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from '../../../server/test/outage/tcp-proxy.js';
import { apiAs, createProject, createUser, type TestUser } from '../../../server/test/support/api-as.js';
import { eventually } from '../../../core/test/support/eventually.js';
import { assertCliBuilt, runCli } from '../../../cli/test/e2e/run-cli.js';
import { createClient } from '@portico/client';
import { createHistoryModule } from '../../src/compliance/history/index.js';
import type { EnterpriseModule } from '../../src/plugin.js';
import type { ViolationChange } from '../../src/compliance/history/change.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../support/db.js';
import { issueLicense } from '../support/license.js';
import { startEnterpriseServer, type EnterpriseServer } from '../support/server.js';

/** A double of the Gatekeeper index's change stream: the violations in force, and changes pushed by the test. */
function violationSource() {
  const inForce = new Map<string, ViolationChange>();
  const listeners = new Set<(change: ViolationChange) => void>();
  return {
    current: () => [...inForce.values()],
    onViolationChange(listener: (change: ViolationChange) => void) {
      listeners.add(listener);
      return { close: () => void listeners.delete(listener) };
    },
    emit(change: ViolationChange) {
      if (change.action === 'add') inForce.set(change.key, change);
      else inForce.delete(change.key);
      for (const listener of listeners) listener(change);
    },
  };
}

/** The edition's modules with its history module replaced by `history` (over a double of the index). */
function withHistoryOver(assembled: EnterpriseModule[], history: EnterpriseModule): EnterpriseModule[] {
  const isHistory = (m: EnterpriseModule) => 'listViolationHistory' in m.handlers;
  for (const m of assembled.filter(isHistory)) void m.stop?.();
  return [...assembled.filter((m) => !isHistory(m)), history];
}

const change = (action: 'add' | 'delete', name: string, namespace: string, project: string | undefined): ViolationChange => ({
  action,
  key: `K8sRequiredLabels/need-team/Deployment/${namespace}/${name}#0`,
  constraintKind: 'K8sRequiredLabels',
  constraintName: 'need-team',
  resource: { kind: 'Deployment', namespace, name, apiGroup: 'apps' },
  message: `=HYPERLINK("x") you must provide labels: {"team"}`,
  enforcementAction: 'dryrun',
  project,
  observedAt: new Date().toISOString(),
});

const HISTORY = '/api/v1/compliance/violations/history';

describe('violation history over HTTP', () => {
  const PG = new URL(TEST_DATABASE_URL);
  const source = violationSource();
  let proxy: TcpProxy;
  let db: TestDatabase;
  let ee: EnterpriseServer;
  let alpha: string;
  let alice: TestUser;
  let bob: TestUser;
  const as = async (token: string, path: string) => {
    const res = await fetch(`${ee.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const json = async (token: string, path: string) => {
    const res = await as(token, path);
    return { ...res, body: JSON.parse(res.text) };
  };

  beforeAll(async () => {
    proxy = await startTcpProxy({ host: PG.hostname, port: Number(PG.port || 5432) });
    db = await createTestDatabase();
    ee = await startEnterpriseServer({
      mode: 'embedded',
      database: { ...db, url: `postgres://${PG.username}@${proxy.address()}${PG.pathname}` },
      license: issueLicense({ features: ['compliance'] }),
      modules: (assembled, enterprise, portico) =>
        withHistoryOver(assembled, createHistoryModule({ pool: enterprise.database.pool, authz: portico.authz, vocabulary: portico.vocabulary, logger: portico.logger, violations: source, synced: Promise.resolve(), retentionDays: 30 })),
    });
    alpha = await createProject(ee, 'alpha', ['alpha-dev']);
    alice = await createUser(ee, 'alice');
    bob = await createUser(ee, 'bob');
    const bound = await apiAs(ee.url, ee.adminToken).post(`/api/v1/projects/${alpha}/roles/viewer/users/${alice.username}`);
    expect(bound.status).toBe(201);
  }, 90_000);
  afterAll(async () => {
    await ee?.close();
    await proxy?.close();
    await db?.drop();
  });

  it('records changes as they come; members see their project\'s records only, a Server Admin all of them', async () => {
    source.emit(change('add', 'web', 'alpha-dev', alpha));
    source.emit(change('add', 'db', 'beta-dev', 'beta'));
    source.emit(change('add', 'node-agent', '', undefined));
    source.emit(change('delete', 'web', 'alpha-dev', alpha));
    const all = await eventually(() => json(ee.adminToken, `${HISTORY}?status=all`), (r) => r.body.total === 3 && r.body.items.some((i: any) => i.status === 'resolved'), 'three records, one resolved');
    expect(all.body.items.map((i: any) => [i.resourceName, i.status])).toEqual([['node-agent', 'active'], ['db', 'active'], ['web', 'resolved']]);

    const mine = await eventually(() => json(alice.token, HISTORY), (r) => r.body.total === 1, 'alice sees her project');
    expect(mine.body).toMatchObject({ total: 1, page: 1, pageSize: 20, items: [{ resourceName: 'web', resourceNamespace: 'alpha-dev', status: 'resolved' }] });
    expect(Object.keys(mine.body.items[0]).sort()).toEqual(
      ['constraintKind', 'constraintName', 'enforcementAction', 'firstSeen', 'key', 'message', 'resolvedAt', 'resourceKind', 'resourceName', 'resourceNamespace', 'status'],
    );
    expect((await json(alice.token, `${HISTORY}/count?status=active`)).body).toEqual({ count: 0, retentionDays: 30 });
    expect((await json(bob.token, HISTORY)).body).toMatchObject({ total: 0, items: [] });
    expect((await json(bob.token, `${HISTORY}/count`)).body).toEqual({ count: 0, retentionDays: 30 });
    expect((await json(ee.adminToken, `${HISTORY}/count?status=active&resource=Deployment/beta-dev/db`)).body).toEqual({ count: 1, retentionDays: 30 });
  });

  it('exports CSV (attachment, formulas defused) of what the caller may see; `since` is required', async () => {
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const res = await as(alice.token, `${HISTORY}/export?since=${encodeURIComponent(since)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="violation-history-.*\.csv"$/);
    const lines = res.text.trim().split('\n');
    expect(lines[0]).toBe('key,constraintKind,constraintName,resourceKind,resourceNamespace,resourceName,enforcementAction,message,firstSeen,resolvedAt,status');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`"'=HYPERLINK(""x"") you must provide labels: {""team""}"`);
    expect(lines[1]).toMatch(/,resolved$/);

    const missing = await json(alice.token, `${HISTORY}/export`);
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(missing.body.details)).toContain('since');
  });

  it('the SDK lists, counts, pages through and streams the history as the caller', async () => {
    const client = createClient({ baseUrl: ee.url, token: ee.adminToken });
    const page = await client.compliance.history({ status: 'active', pageSize: 1 });
    expect(page).toMatchObject({ total: 2, page: 1, pageSize: 1, items: [{ resourceName: 'node-agent' }] });
    expect(await client.compliance.historyCount({ constraint: 'K8sRequiredLabels/need-team' })).toEqual({ count: 3, retentionDays: 30 });
    const all = [];
    for await (const record of client.compliance.historyAll()) all.push(record.resourceName);
    expect(all).toEqual(['node-agent', 'db', 'web']);
    const asAlice = createClient({ baseUrl: ee.url, token: alice.token });
    const download = await asAlice.compliance.exportHistory({ since: new Date(Date.now() - 3_600_000).toISOString() });
    expect(download.filename).toMatch(/^violation-history-.*\.csv$/);
    const text = await new Response(download.body).text();
    expect(text.trim().split('\n')).toHaveLength(2);
    await expect(asAlice.compliance.exportHistory({ since: 'last week' })).rejects.toMatchObject({ status: 400 });
  });

  it('portico compliance export --since 7d writes the CSV to stdout and a count to stderr; --since takes RFC 3339 too', async () => {
    assertCliBuilt();
    const home = await mkdtemp(join(tmpdir(), 'portico-compliance-cli-'));
    try {
      const user = { home, configFile: join(home, 'config.yaml') };
      const cli = (token: string, args: string[]) => runCli(user, ['--server', ee.url, '--token', token, ...args]);
      const exported = await cli(ee.adminToken, ['compliance', 'export', '--since', '7d']);
      expect(exported.code, exported.stderr).toBe(0);
      const lines = exported.stdout.trim().split('\n');
      expect(lines[0]).toBe('key,constraintKind,constraintName,resourceKind,resourceNamespace,resourceName,enforcementAction,message,firstSeen,resolvedAt,status');
      expect(lines).toHaveLength(4);
      expect(exported.stderr).toMatch(/exported 3 records/);
      const mine = await cli(alice.token, ['compliance', 'export', '--since', new Date(Date.now() - 86_400_000).toISOString(), '--status', 'resolved']);
      expect(mine.code, mine.stderr).toBe(0);
      expect(mine.stdout.trim().split('\n').slice(1).map((l) => l.split(',')[5])).toEqual(['web']);
      const bad = await cli(ee.adminToken, ['compliance', 'export', '--since', 'a while']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--since must be a duration/);
      const missing = await cli(ee.adminToken, ['compliance', 'export']);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/--since/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('bad filters are 400 naming every bad field', async () => {
    const res = await json(ee.adminToken, `${HISTORY}?status=open&constraint=nope&since=yesterday&pageSize=501`);
    expect(res.status).toBe(400);
    const text = JSON.stringify(res.body.details);
    for (const field of ['status', 'constraint', 'since', 'pageSize']) expect(text).toContain(field);
  });

  it('acceptance 3: 100,000 records stream as CSV over HTTP with flat memory, and `count` matches', async () => {
    await db.pool.query('TRUNCATE violation_history');
    // About 380 bytes per CSV line: some 38 MB in all. Written on a connection of its own, without the pool's
    // timeouts (a few seconds, on the server and in the client, are for requests): this bulk insert can take
    // longer on a busy 2-core machine, and a failure must not leave a pooled client in an open transaction.
    const setup = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${db.schema},public -c statement_timeout=120s` });
    await setup.connect();
    try {
      await setup.query(`
        INSERT INTO violation_history (key, constraint_kind, constraint_name, resource_kind, resource_namespace, resource_name,
          enforcement_action, message, project, first_seen, enforcement_seen, resolved_at, status)
        SELECT 'K8sContainerLimits/limits-' || (g % 200) || '/Pod/team-' || (g % 50) || '/app-' || g || '#0', 'K8sContainerLimits',
          'limits-' || (g % 200), 'Pod', 'team-' || (g % 50), 'app-' || g, 'dryrun',
          'container <app> has no resource limits; ' || repeat('cpu and memory limits are required by policy. ', 5) || g, 'p' || (g % 50),
          now() - g * interval '1 second', now() - g * interval '1 second',
          CASE WHEN g % 2 = 0 THEN now() END, CASE WHEN g % 2 = 0 THEN 'resolved' ELSE 'active' END
        FROM generate_series(1, 100000) AS g`);
    } finally {
      await setup.end();
    }
    const since = encodeURIComponent(new Date(Date.now() - 7 * 86_400_000).toISOString());
    const counted = await json(ee.adminToken, `${HISTORY}/count?since=${since}`);
    expect(counted.body).toEqual({ count: 100_000, retentionDays: 30 });

    setFlagsFromString('--expose_gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const baseline = process.memoryUsage().heapUsed;
    let peak = 0;
    let bytes = 0;
    let lines = 0;
    let nextSample = 0;
    const res = await fetch(`${ee.url}${HISTORY}/export?since=${since}`, { headers: { authorization: `Bearer ${ee.adminToken}` } });
    expect(res.status).toBe(200);
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
      if (bytes >= nextSample) {
        // What is still reachable after a full collection: the stream's buffers, not garbage waiting for GC.
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed - baseline);
        nextSample = bytes + 2_000_000;
      }
    }
    expect(lines - 1).toBe(counted.body.count);
    expect(bytes).toBeGreaterThan(30_000_000);
    // The whole export held in memory would be well over 38 MB of strings; streaming keeps a few batches.
    expect(peak).toBeLessThan(12_000_000);
    expect(peak).toBeLessThan(bytes / 4);
  }, 120_000);

  it('PostgreSQL down: every history route answers 503 with Retry-After, and serves again once it is back', async () => {
    await proxy.cut();
    for (const path of [HISTORY, `${HISTORY}/count`, `${HISTORY}/export?since=2026-01-01T00:00:00Z`]) {
      const res = await json(ee.adminToken, path);
      expect(res.status, path).toBe(503);
      expect(res.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { component: 'postgres' } });
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    await proxy.restore();
    await eventually(() => as(ee.adminToken, `${HISTORY}/count`), (r) => r.status === 200, 'history served again', { timeoutMs: 15_000, intervalMs: 200 });
  });
});

describe('violation history without the compliance feature', () => {
  let ee: EnterpriseServer;
  beforeAll(async () => {
    ee = await startEnterpriseServer({
      mode: 'embedded',
      license: issueLicense({ features: ['audit'] }),
      modules: (assembled, enterprise, portico) =>
        withHistoryOver(assembled, createHistoryModule({ pool: enterprise.database.pool, authz: portico.authz, vocabulary: portico.vocabulary, logger: portico.logger, violations: violationSource(), synced: Promise.resolve(), retentionDays: 90 })),
    });
  }, 90_000);
  afterAll(() => ee?.close());

  it('answers 402 LICENSE_REQUIRED naming `compliance` on every history route', async () => {
    for (const path of [HISTORY, `${HISTORY}/count`, `${HISTORY}/export?since=2026-01-01T00:00:00Z`]) {
      const res = await fetch(`${ee.url}${path}`, { headers: { authorization: `Bearer ${ee.adminToken}` } });
      expect(res.status, path).toBe(402);
      expect(await res.json()).toMatchObject({ code: 'LICENSE_REQUIRED', details: { feature: 'compliance' } });
    }
  });
});
