import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@portico/client';
import { assertCliBuilt, runCli } from '../../../cli/test/e2e/run-cli.js';
import { startAuditStack, type AuditStack } from './stack.js';

const prefixes = ['/api/v1/audit', '/api/v1/settings/audit'];

describe('the audit routes over HTTP: filters, configuration, erasure', () => {
  let stack: AuditStack;
  let admin: string;
  let hank: string;
  const call = async (token: string, method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    return fetch(`${stack.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  };

  beforeAll(async () => {
    stack = await startAuditStack();
    admin = await stack.login('admin', stack.adminPassword);
    await stack.createAccount(admin, 'hank', 'hank-password-1');
    hank = await stack.login('hank', 'hank-password-1');
  });
  afterAll(async () => stack?.close());

  it('a NUL or another control character in a text filter is 400 naming the field, for listings and exports on both prefixes', async () => {
    const bad = ['%00', 'a%00b', '%1F', '%7F', '%C2%85', 'x%0Ay'];
    for (const prefix of prefixes) {
      for (const field of ['userId', 'action', 'resource', 'project', 'namespace']) {
        for (const value of bad) {
          for (const path of [`${prefix}/events?${field}=${value}`, `${prefix}/events/export?format=csv&${field}=${value}`]) {
            const res = await call(admin, 'GET', path);
            expect(res.status, path).toBe(400);
            expect(res.headers.get('content-type'), path).toMatch(/application\/json/);
            const body = (await res.json()) as { code: string; details: { fields: Record<string, string> } };
            expect(body.code, path).toBe('VALIDATION_FAILED');
            expect(Object.keys(body.details.fields), path).toEqual([field]);
          }
        }
      }
      // Ordinary text, spaces and non-ASCII included, is a filter like any other.
      expect((await call(admin, 'GET', `${prefix}/events?userId=${encodeURIComponent('Zoë Müller')}`)).status).toBe(200);
    }
  });

  it('GET …/config answers maxStreamLength, and sending back what was read saves it, on both prefixes', async () => {
    for (const prefix of prefixes) {
      const read = (await (await call(admin, 'GET', `${prefix}/config`)).json()) as Record<string, unknown>;
      expect(read).toEqual({ enabled: true, retentionDays: 365, maxStreamLength: 100_000, excludeActions: [], excludeResources: [] });
      const saved = await call(admin, 'PUT', `${prefix}/config`, read);
      expect(saved.status).toBe(200);
      expect(await saved.json()).toEqual(read);
      const changed = await call(admin, 'PUT', `${prefix}/config`, { ...read, maxStreamLength: 250_000 });
      expect(await changed.json()).toEqual({ ...read, maxStreamLength: 250_000 });
      expect(await (await call(admin, 'GET', `${prefix}/config`)).json()).toEqual({ ...read, maxStreamLength: 250_000 });
      const tooSmall = await call(admin, 'PUT', `${prefix}/config`, { ...read, maxStreamLength: 999 });
      expect(tooSmall.status).toBe(400);
      expect(((await tooSmall.json()) as { details: { fields: Record<string, string> } }).details.fields).toHaveProperty('maxStreamLength');
      const control = await call(admin, 'PUT', `${prefix}/config`, { ...read, excludeActions: ['log\u0000in'] });
      expect(control.status).toBe(400);
      expect(await call(admin, 'PUT', `${prefix}/config`, read).then((r) => r.status)).toBe(200);
    }
  });

  it('POST …/events/{id}/erase: a Server Admin erases one event\'s details on either prefix, verify still passes', async () => {
    const leaked = `leaked-${Date.now()}`;
    const created = await call(admin, 'POST', '/api/v1/projects', { name: 'erasable', description: leaked });
    expect(created.status).toBe(201);
    const { rows } = await stack.db.pool.query<{ id: string }>('SELECT id FROM audit_events WHERE request_id = $1', [created.headers.get('x-request-id')]);
    const id = rows[0]!.id;
    expect(JSON.stringify(await (await call(admin, 'GET', `/api/v1/audit/events/${id}`)).json())).toContain(leaked);

    expect((await call(hank, 'POST', `/api/v1/audit/events/${id}/erase`, { reason: 'mine' })).status).toBe(403);
    for (const reason of ['', '   ', 'two\u0000parts']) {
      const res = await call(admin, 'POST', `/api/v1/audit/events/${id}/erase`, { reason });
      expect(res.status, JSON.stringify(reason)).toBe(400);
      expect(((await res.json()) as { details: { fields: Record<string, string> } }).details.fields).toHaveProperty('reason');
    }
    expect((await call(admin, 'POST', `/api/v1/audit/events/${id}/erase`, {})).status).toBe(400);
    expect((await call(admin, 'POST', '/api/v1/audit/events/not-an-id/erase', { reason: 'x' })).status).toBe(400);
    expect((await call(admin, 'POST', '/api/v1/audit/events/01ARZ3NDEKTSV4RRFFQ69G5FAV/erase', { reason: 'x' })).status).toBe(404);

    const erased = await call(admin, 'POST', `/api/v1/settings/audit/events/${id}/erase`, { reason: 'a value that should never have been recorded' });
    expect(erased.status).toBe(200);
    const event = (await erased.json()) as { id: string; details: object; erased: { at: string; by: string; reason: string } };
    expect(event).toMatchObject({ id, details: {}, erased: { by: 'admin', reason: 'a value that should never have been recorded' } });
    for (const prefix of prefixes) expect(await (await call(admin, 'GET', `${prefix}/events/${id}`)).json()).toEqual(event);
    expect((await call(admin, 'POST', `/api/v1/audit/events/${id}/erase`, { reason: 'again' })).status).toBe(409);
    const hits = await stack.db.pool.query(`SELECT 1 FROM audit_events t WHERE row_to_json(t)::text LIKE '%' || $1 || '%'`, [leaked]);
    expect(hits.rowCount).toBe(0);
    for (const prefix of prefixes) expect(await (await call(admin, 'GET', `${prefix}/verify`)).json()).toMatchObject({ ok: true });
  });

  /** A fresh event to erase: a project created with a description, and the id of its event. */
  const recordedEvent = async (name: string) => {
    const created = await call(admin, 'POST', '/api/v1/projects', { name, description: `${name}-details` });
    expect(created.status).toBe(201);
    const { rows } = await stack.db.pool.query<{ id: string }>('SELECT id FROM audit_events WHERE request_id = $1', [created.headers.get('x-request-id')]);
    return rows[0]!.id;
  };

  it('the SDK: audit.erase(id, reason), and a config read then saved whole', async () => {
    const client = createClient({ baseUrl: stack.url, token: admin });
    const id = await recordedEvent('sdk-erased');
    const event = await client.audit.erase(id, 'erased through the SDK');
    expect(event).toMatchObject({ id, details: {}, erased: { by: 'admin', reason: 'erased through the SDK' } });
    expect(await client.audit.get(id)).toEqual(event);
    await expect(client.audit.erase(id, 'again')).rejects.toMatchObject({ status: 409 });
    const config = await client.audit.getConfig();
    expect(await client.audit.updateConfig(config)).toEqual(config);
    expect((await client.audit.verify()).ok).toBe(true);
  });

  it('the CLI: portico audit erase <id> --reason …', async () => {
    assertCliBuilt();
    const home = await mkdtemp(join(tmpdir(), 'portico-audit-erase-'));
    try {
      const user = { home, configFile: join(home, 'config.yaml') };
      const cli = (args: string[]) => runCli(user, ['--server', stack.url, '--token', admin, ...args]);
      const id = await recordedEvent('cli-erased');
      const missingReason = await cli(['audit', 'erase', id]);
      expect(missingReason.code).not.toBe(0);
      expect(missingReason.stderr).toMatch(/--reason/);
      const erased = await cli(['audit', 'erase', id, '--reason', 'erased through the CLI', '-o', 'json']);
      expect(erased.code, erased.stderr).toBe(0);
      expect(JSON.parse(erased.stdout)).toMatchObject({ id, details: {}, erased: { by: 'admin', reason: 'erased through the CLI' } });
      const shown = await cli(['audit', 'get', id]);
      expect(shown.stdout).toMatch(/Erased:\s+\S+ by admin: erased through the CLI/);
      const again = await cli(['audit', 'erase', id, '--reason', 'again']);
      expect(again.code).not.toBe(0);
      expect(again.stderr).toMatch(/already erased/);
      const config = await cli(['audit', 'config', 'show']);
      expect(config.stdout).toMatch(/Max stream length:\s+\d+/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
