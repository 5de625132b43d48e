import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt, runCli } from '../../../cli/test/e2e/run-cli.js';
import { routes, type RouteDef } from '@portico/api';
import { GINA_PASSWORD, plan, plannedSecretValues } from './route-plan.js';
import { startAuditStack, type AuditStack } from './stack.js';

interface EventRow {
  id: string;
  user_id: string;
  action: string;
  result: string;
  http_status: number;
  request_id: string;
}

/** Every route but a GET is planned; those that change nothing (a HEAD, a `readOnly` POST) must leave no event. */
const planned = (route: RouteDef) => route.method !== 'GET';
const changesSomething = (route: RouteDef) => route.method !== 'HEAD' && !route.readOnly;

describe('acceptance 3: every mutation, sign-in, sign-out and denial leaves exactly one audit event', () => {
  let stack: AuditStack;
  const rowsFor = async (requestId: string) =>
    (await stack.db.pool.query<EventRow>('SELECT id, user_id, action, result, http_status, request_id FROM audit_events WHERE request_id = $1', [requestId])).rows;
  const countEvents = async () => (await stack.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_events')).rows[0].n;

  beforeAll(async () => {
    stack = await startAuditStack();
  });
  afterAll(async () => stack?.close());

  it('walks the OSS route table: each mutating route, one event with its actor, action, result, status and request id; a read-only one, none', async () => {
    const calls = plan(stack.adminPassword);
    const oss = routes.filter((r) => planned(r) && !('enterprise' in r && r.enterprise)) as RouteDef[];
    expect(oss.map((r) => r.id).filter((id) => !calls[id])).toEqual([]);
    expect(Object.keys(calls).sort()).toEqual(oss.map((r) => r.id).sort());
    // The plan expects an event exactly where the route table says the route changes something.
    expect(oss.filter((r) => changesSomething(r) !== !('recorded' in calls[r.id])).map((r) => r.id)).toEqual([]);

    const tokens: Record<string, string> = { admin: await stack.login('admin', stack.adminPassword), spare: await stack.login('admin', stack.adminPassword) };
    const get = async (path: string) => (await (await fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${tokens.admin}` } })).json()) as Record<string, unknown>;
    // In the plan's order: each call may need what an earlier one created.
    for (const [id, call] of Object.entries(calls)) {
      const route = oss.find((r) => r.id === id)!;
      if (route.id === 'changePassword') tokens.gina = await stack.login('gina', GINA_PASSWORD);
      const prepared = call.prepare ? await call.prepare(get) : { body: call.body };
      const eventsBefore = await countEvents();
      const headers: Record<string, string> = { 'user-agent': 'audit-acceptance' };
      if (route.auth === 'user') headers.authorization = `Bearer ${tokens[call.as ?? 'admin']}`;
      if (prepared.body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${stack.url}${prepared.path ?? call.path}`, { method: route.method, headers, body: prepared.body === undefined ? undefined : JSON.stringify(prepared.body) });
      expect(res.status, `${route.id}: ${await res.clone().text()}`).toBe(call.status);
      const requestId = res.headers.get('x-request-id') ?? '';
      const rows = await rowsFor(requestId);
      if ('recorded' in call) {
        // Not by this request id, nor without one: the trail did not grow at all.
        expect(rows, route.id).toEqual([]);
        expect(await countEvents(), route.id).toBe(eventsBefore);
        continue;
      }
      expect(rows, route.id).toHaveLength(1);
      expect(rows[0], route.id).toMatchObject({ user_id: call.userId, action: call.action, result: call.result, http_status: call.status });
    }
    // Secret values the plan wrote are redacted from the trail (their names and keys stay).
    for (const value of plannedSecretValues) {
      const hits = await stack.db.pool.query(`SELECT 1 FROM audit_events t WHERE row_to_json(t)::text LIKE '%' || $1 || '%'`, [value]);
      expect(hits.rowCount, value).toBe(0);
    }
  });

  it('a failed sign-in is `login_failed` with the username, and the password is nowhere in the database', async () => {
    const password = `wrong-${Date.now()}-horse`;
    const res = await fetch(`${stack.url}/api/v1/auth/local/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password }) });
    expect(res.status).toBe(401);
    const rows = await rowsFor(res.headers.get('x-request-id') ?? '');
    expect(rows).toEqual([expect.objectContaining({ action: 'login_failed', user_id: 'admin', result: 'denied', http_status: 401 })]);
    // Every column of every table of the Enterprise schema, as text.
    const tables = (await stack.db.pool.query<{ table_name: string }>('SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [stack.db.schema])).rows;
    expect(tables.map((t) => t.table_name)).toContain('audit_events');
    for (const { table_name } of tables) {
      const hits = await stack.db.pool.query(`SELECT 1 FROM "${table_name}" t WHERE row_to_json(t)::text LIKE '%' || $1 || '%'`, [password]);
      expect(hits.rowCount, table_name).toBe(0);
    }
  });

  it('a denial is `denied`; the audit routes answer the same on both path forms and need the audit permission', async () => {
    const admin = await stack.login('admin', stack.adminPassword);
    await stack.createAccount(admin, 'hank', 'hank-password-1');
    const hank = await stack.login('hank', 'hank-password-1');
    const denied = await fetch(`${stack.url}/api/v1/projects`, { method: 'POST', headers: { authorization: `Bearer ${hank}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'not-yours' }) });
    expect(denied.status).toBe(403);
    expect(await rowsFor(denied.headers.get('x-request-id') ?? '')).toEqual([expect.objectContaining({ user_id: 'hank', action: 'create', result: 'denied', http_status: 403 })]);

    const query = '?userId=hank&result=denied&pageSize=5';
    const formA = await fetch(`${stack.url}/api/v1/audit/events${query}`, { headers: { authorization: `Bearer ${admin}` } });
    const formB = await fetch(`${stack.url}/api/v1/settings/audit/events${query}`, { headers: { authorization: `Bearer ${admin}` } });
    expect(formA.status).toBe(200);
    const listed = (await formA.json()) as { events: { requestId: string }[]; total: number };
    expect(listed.events.map((e) => e.requestId)).toContain(denied.headers.get('x-request-id'));
    expect(await formB.json()).toEqual(listed);
    const forbidden = await fetch(`${stack.url}/api/v1/audit/events`, { headers: { authorization: `Bearer ${hank}` } });
    expect(forbidden.status).toBe(403);
  });

  it('a row edited by SQL is named by verify', async () => {
    const admin = await stack.login('admin', stack.adminPassword);
    const verify = async () => (await (await fetch(`${stack.url}/api/v1/audit/verify`, { headers: { authorization: `Bearer ${admin}` } })).json()) as { ok: boolean; checked: number; firstBrokenId?: string };
    expect(await verify()).toMatchObject({ ok: true });
    const { rows } = await stack.db.pool.query<{ id: string }>('SELECT id FROM audit_events ORDER BY seq LIMIT 1 OFFSET 3');
    const client = await stack.db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL session_replication_role = replica');
      await client.query("UPDATE audit_events SET user_id = 'someone-else' WHERE id = $1", [rows[0].id]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    expect(await verify()).toEqual({ ok: false, checked: 4, firstBrokenId: rows[0].id });
  });

  it('portico audit list --since 1h --user … and portico audit export -o csv (progress on stderr) against the server', async () => {
    assertCliBuilt();
    const home = await mkdtemp(join(tmpdir(), 'portico-audit-cli-'));
    try {
      const user = { home, configFile: join(home, 'config.yaml') };
      const admin = await stack.login('admin', stack.adminPassword);
      const cli = (args: string[]) => runCli(user, ['--server', stack.url, '--token', admin, ...args]);
      const listed = await cli(['audit', 'list', '--since', '1h', '--user', 'hank', '-o', 'json']);
      expect(listed.code, listed.stderr).toBe(0);
      const events = (JSON.parse(listed.stdout) as { events: { userId: string; action: string }[] }).events;
      expect(events.length).toBeGreaterThan(0);
      expect(new Set(events.map((e) => e.userId))).toEqual(new Set(['hank']));
      const table = await cli(['audit', 'list', '--since', '1h', '--action', 'login_failed']);
      expect(table.stdout).toMatch(/login_failed/);

      const exported = await cli(['audit', 'export', '-o', 'csv', '--since', '1h']);
      expect(exported.code, exported.stderr).toBe(0);
      const lines = exported.stdout.trim().split('\n');
      expect(lines[0]).toBe('id,timestamp,userId,userEmail,sourceIP,userAgent,action,resource,name,project,namespace,requestId,result,httpStatus,details,erased');
      const { rows } = await stack.db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM audit_events WHERE ts > now() - interval '1 hour'");
      expect(lines.length - 1).toBe(rows[0].n);
      expect(exported.stderr).toMatch(new RegExp(`exported ${lines.length - 1} events`));
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
