import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger, forbidden, unauthorized } from '@portico/core';
import { createPool } from '../../src/db/pool.js';
import { writeConfig } from '../../src/audit/config.js';
import type { Operation } from '@portico/core';
import { createAuditRecorder } from '../../src/audit/recorder.js';
import { canonicalJson } from '../../src/audit/chain.js';
import { redact } from '../../src/audit/redact.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

type Facts = Partial<Omit<Operation, 'request'>> & { routeId?: string; requestId?: string; sourceIP?: string; userAgent?: string; successStatus?: number };
const facts = (extra: Facts = {}): Operation => {
  const { routeId = 'updateProject', requestId = 'req-1', sourceIP = '10.1.2.3', userAgent = 'curl/8', successStatus = 200, ...rest } = extra;
  return {
    id: 'projects.update',
    actor: { id: 'gina', email: 'gina@example.com' },
    action: 'update',
    resource: 'projects',
    name: 'alpha',
    project: 'alpha',
    input: { params: { name: 'alpha' }, body: { description: 'd' } },
    secretFields: [],
    request: { routeId, requestId, sourceIP, userAgent, successStatus },
    ...rest,
  };
};

describe('the operation hook records one event per operation and fails closed', () => {
  let db: TestDatabase;
  const record = () => createAuditRecorder({ pool: db.pool, logger: createLogger('silent') });
  const rows = async () => (await db.pool.query('SELECT * FROM audit_events ORDER BY seq')).rows;

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db.drop());

  it('a success is recorded with actor, action, object, request id and status before the caller gets the value', async () => {
    await expect(record()(facts(), async () => ({ ok: 1 }))).resolves.toEqual({ ok: 1 });
    const [row] = await rows();
    expect(row).toMatchObject({
      user_id: 'gina', user_email: 'gina@example.com', action: 'update', resource: 'projects', name: 'alpha', project: 'alpha',
      request_id: 'req-1', result: 'success', http_status: 200, source_ip: '10.1.2.3', user_agent: 'curl/8',
    });
    expect(row.details).toEqual({ routeId: 'updateProject', operation: 'projects.update', input: { params: { name: 'alpha' }, body: { description: 'd' } } });
  });

  it('a failed sign-in is `login_failed` under the username, and the password is stored nowhere', async () => {
    const password = 'hunter2-correct-horse';
    const attempt = facts({ actor: undefined, routeId: 'localLogin', action: 'login', resource: 'session', name: 'ivan', project: undefined, input: { body: { username: 'ivan', password } } });
    await expect(record()(attempt, async () => Promise.reject(unauthorized('invalid username or password')))).rejects.toMatchObject({ status: 401 });
    const last = (await rows()).at(-1);
    expect(last).toMatchObject({ action: 'login_failed', user_id: 'ivan', result: 'denied', http_status: 401 });
    const dump = await db.pool.query("SELECT count(*)::int AS n FROM audit_events WHERE row_to_json(audit_events)::text LIKE '%' || $1 || '%'", [password]);
    expect(dump.rows[0].n).toBe(0);
    expect(last.details.input.body).toEqual({ username: 'ivan', password: '[REDACTED]' });
  });

  it('a denial is `denied` with its status; other failures are `error`; the caller gets the original error', async () => {
    const denial = forbidden('no');
    await expect(record()(facts({ requestId: 'req-d' }), async () => Promise.reject(denial))).rejects.toBe(denial);
    await expect(record()(facts({ requestId: 'req-e' }), async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const [d, e] = (await rows()).slice(-2);
    expect(d).toMatchObject({ request_id: 'req-d', result: 'denied', http_status: 403 });
    expect(d.details.error).toEqual({ errorCode: 'FORBIDDEN', message: 'no' });
    expect(e).toMatchObject({ request_id: 'req-e', result: 'error', http_status: 500 });
  });

  it('text PostgreSQL cannot store (NUL, a lone surrogate from a JSON escape) is recorded replaced, and spoils no other record', async () => {
    const hook = record();
    const before = (await rows()).length;
    // JSON.parse turns the escapes of a request body into these; jsonb refuses both.
    const hostile = facts({ requestId: 'req-hostile', input: { body: { description: 'a \u0000 b \ud800 c \udc00' } } });
    // The same text outside the input: a failed sign-in records the username it named as user and name, and the
    // error message may repeat it.
    const username = 'eve \u0000 \ud800';
    const signIn = facts({
      actor: undefined, routeId: 'localLogin', action: 'login', resource: 'session', name: username, project: undefined,
      requestId: 'req-sign-in', input: { body: { username } },
    });
    const bystander = facts({ requestId: 'req-bystander' });
    await Promise.all([
      hook(hostile, async () => 'ran'),
      hook(signIn, async () => Promise.reject(unauthorized(`no such user ${username}`))).catch(() => undefined),
      hook(bystander, async () => 'ran'),
      hook(facts({ requestId: 'req-third' }), async () => 'ran'),
    ]);
    const added = (await rows()).slice(before);
    expect(added.map((r) => r.request_id).sort()).toEqual(['req-bystander', 'req-hostile', 'req-sign-in', 'req-third']);
    expect(added.find((r) => r.request_id === 'req-hostile').details.input.body.description).toBe('a \uFFFD b \uFFFD c \uFFFD');
    const failed = added.find((r) => r.request_id === 'req-sign-in');
    expect(failed).toMatchObject({ action: 'login_failed', user_id: 'eve \uFFFD \uFFFD', name: 'eve \uFFFD \uFFFD' });
    expect(failed.details.error.message).toBe('no such user eve \uFFFD \uFFFD');
    // A well-formed pair (an emoji) is text like any other.
    expect(redact({ note: 'ok \ud83d\ude00 \ud800' })).toEqual({ note: 'ok \u{1F600} \uFFFD' });
  });

  it('excluded actions and resources, and a disabled trail, run without a record', async () => {
    const before = (await rows()).length;
    await writeConfig(db.pool, { enabled: true, retentionDays: 30, excludeActions: ['update'], excludeResources: [] });
    await expect(record()(facts(), async () => 'ran')).resolves.toBe('ran');
    await writeConfig(db.pool, { enabled: false, retentionDays: 30, excludeActions: [], excludeResources: [] });
    await expect(record()(facts(), async () => 'ran')).resolves.toBe('ran');
    await writeConfig(db.pool, { enabled: true, retentionDays: 30, excludeActions: [], excludeResources: [] });
    expect((await rows()).length).toBe(before);
  });

  it('with PostgreSQL unreachable the operation does not run and the caller gets 503 with Retry-After', async () => {
    const dead = createPool({ url: 'postgres://postgres@127.0.0.1:1/test', schema: db.schema, connectTimeoutMs: 300 });
    const run = vi.fn(async () => 'ran');
    await expect(createAuditRecorder({ pool: dead, logger: createLogger('silent') })(facts(), run)).rejects.toMatchObject({
      status: 503, code: 'SERVICE_UNAVAILABLE', retryAfter: 5,
    });
    expect(run).not.toHaveBeenCalled();
    await dead.end();
  });
});

describe('redaction', () => {
  it('replaces secret-like fields at every depth, and `data` only where it holds a Secret', () => {
    const input = {
      password: 'p', nested: [{ clientSecret: 'c', token: 't', keep: 'k' }, { deeper: { privateKey: 'x', private_key: 'y', Secret: 's' } }],
      data: { a: 1 },
    };
    expect(redact(input)).toEqual({
      password: '[REDACTED]',
      nested: [{ clientSecret: '[REDACTED]', token: '[REDACTED]', keep: 'k' }, { deeper: { privateKey: '[REDACTED]', private_key: '[REDACTED]', Secret: '[REDACTED]' } }],
      data: { a: 1 },
    });
    expect(redact({ body: { data: { key: 'v' } } }, { secretData: true })).toEqual({ body: { data: '[REDACTED]' } });
  });

  it('keeps a field named __proto__ as a field, so the record holds what the request sent', () => {
    // The HTTP layer refuses such bodies (400); redaction does not lean on that, as in parsed JSON it is an ordinary key.
    const input = JSON.parse('{"spec":{"__proto__":{"token":"t","size":"xl"},"a":1}}') as unknown;
    const copy = redact(input) as { spec: Record<string, unknown> };
    expect(canonicalJson(copy)).toBe('{"spec":{"__proto__":{"size":"xl","token":"[REDACTED]"},"a":1}}');
    expect(copy.spec.size).toBeUndefined();
  });
});
