import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { resources } from '@portico/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt, runCli } from '../../../cli/test/e2e/run-cli.js';
import { apiAs, createUser, uniqueName, type ApiAs } from '../support/api-as.js';
import { startPorticoServer, type PorticoServer } from '../support/cluster-modes.js';
import { connect } from '../ws/harness.js';

// Contract §14, project tokens, as a CI pipeline uses them: issued for one role of one project, handed to the CLI
// and the SDK through the environment alone, scoped to that role's current policies, and refused on every replica
// (two servers on one Kubernetes API server and one Redis) within 2 s of a revocation or of its role's deletion.

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const clientDist = join(repoRoot, 'packages/client/dist/index.js');
const run = promisify(execFile);

let a: PorticoServer;
let b: PorticoServer;
let admin: ApiAs;
let home: string;

beforeAll(async () => {
  assertCliBuilt();
  if (!existsSync(clientDist)) throw new Error(`${clientDist} is missing: run npm run build first`);
  a = await startPorticoServer({ mode: 'kubernetes', kv: 'redis' });
  b = await startPorticoServer({ mode: 'kubernetes', kv: 'redis', redisPrefix: a.redisPrefix, join: a, adminPassword: a.adminPassword });
  admin = apiAs(a.url, a.adminToken);
  home = await mkdtemp(join(tmpdir(), 'portico-ci-'));
}, 120_000);

afterAll(async () => {
  await b?.close();
  await a?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

/** A project deploying to dev with the conventional roles (platform-admin, developer, viewer). */
async function project(prefix = 'ci'): Promise<string> {
  const name = uniqueName(prefix);
  expect((await admin.post('/api/v1/projects', { name, destinations: [{ namespace: 'dev' }] })).status).toBe(201);
  return name;
}

/** A token of `role` in `name`, issued by the admin; the whole answer. */
async function issue(name: string, role: string, body: Record<string, unknown> = {}) {
  const res = await admin.post(`/api/v1/projects/${name}/roles/${role}/tokens`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; token: string; issuedAt: string; expiresAt?: string };
}

const webApp = (name: string, project: string) => ({ name, namespace: 'dev', rgdName: 'web-app', projectId: project, spec: { image: 'nginx' } });

/** Milliseconds until `path` answers 401 to `token` on `server` (fails after `withinMs`). */
async function refusedWithin(server: PorticoServer, token: string, path: string, withinMs = 2_000): Promise<number> {
  const since = Date.now();
  for (;;) {
    const { status } = await apiAs(server.url, token).get(path);
    if (status === 401) return Date.now() - since;
    if (Date.now() - since > withinMs) throw new Error(`${server.url}${path} still answered ${status} after ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('project tokens (§14)', { timeout: 120_000 }, () => {
  it('a developer token creates an instance in its project from a fresh shell: the CLI and the SDK with only the environment', async () => {
    const name = await project();
    const { token } = await issue(name, 'developer', { description: 'deploy from CI' });
    // The CLI: no config file, no login, nothing in the environment but PATH, HOME and the two variables.
    const env = { PORTICO_SERVER: b.url, PORTICO_TOKEN: token };
    const cli = await runCli({ home, configFile: join(home, 'none.yaml') }, ['instance', 'create', 'WebApp', `${name}-cli`, '-p', name, '-n', 'dev', '--set', 'image=nginx'], { env });
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    // The SDK: createClient() with no options at all.
    const script = `import { createClient } from '@portico/client';
const portico = createClient();
const created = await portico.instances.create({ name: '${name}-sdk', namespace: 'dev', kind: 'WebApp', project: '${name}', values: { image: 'nginx' } });
console.log(JSON.stringify({ name: created.name, project: created.project }));`;
    const sdk = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: repoRoot, env: { PATH: process.env.PATH ?? '', HOME: home, ...env } });
    expect(JSON.parse(sdk.stdout)).toEqual({ name: `${name}-sdk`, project: name });

    const { body } = await admin.get(`/api/v1/instances?projectId=${name}`);
    expect(body.items.map((i: { name: string }) => i.name).sort()).toEqual([`${name}-cli`, `${name}-sdk`]);
  });

  it('acts as its role in its project only: 403 in another project, on global routes and on token management', async () => {
    const [own, other] = [await project(), await project('other')];
    const { token } = await issue(own, 'developer');
    const ci = apiAs(a.url, token);
    expect((await ci.post('/api/v1/instances', webApp(`${own}-ok`, own))).status).toBe(201);
    expect((await ci.post('/api/v1/instances', webApp(`${other}-no`, other))).status).toBe(403);
    expect((await ci.post('/api/v1/projects', { name: uniqueName('made-by-ci') })).status).toBe(403);
    expect((await ci.get('/api/v1/accounts')).status).toBe(403);
    expect((await ci.get('/api/v1/projects')).body.items.map((p: { name: string }) => p.name)).toEqual([own]);
    expect((await ci.get(`/api/v1/projects/${other}`)).status).toBe(404);
    // Even a role allowed members/* may not mint tokens through a token of its own.
    const { token: adminRoleToken } = await issue(own, 'platform-admin');
    expect((await apiAs(a.url, adminRoleToken).post(`/api/v1/projects/${own}/roles/developer/tokens`, {})).status).toBe(403);
    expect((await apiAs(a.url, adminRoleToken).post(`/api/v1/projects/${own}/roles/developer/users/someone`)).status).toBe(201);
    // The account summary shows the role, nothing global.
    const info = (await ci.get('/api/v1/account/info')).body;
    expect(info).toMatchObject({ serverAdmin: false, casbinRoles: [], projects: [own], roles: { [own]: 'developer' } });
  });

  it('is never shown again: not in the list, the project, the Project resource or a later answer', async () => {
    const name = await project();
    const created = await issue(name, 'viewer', { description: 'nightly report' });
    expect(Object.keys(created).sort()).toEqual(['id', 'issuedAt', 'token']);
    const list = await admin.get(`/api/v1/projects/${name}/roles/viewer/tokens`);
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([{ id: created.id, description: 'nightly report', issuedAt: created.issuedAt, createdBy: 'admin' }]);
    const stored = await a.kubectl.get(resources.project, name, a.portico.config.kubernetes.namespace);
    for (const text of [JSON.stringify(list.body), JSON.stringify((await admin.get(`/api/v1/projects/${name}`)).body), JSON.stringify(stored)]) {
      expect(text).not.toContain(created.token);
      expect(text).not.toContain(created.token.split('.')[2]);
    }
  });

  it('revoked on one replica: 401 on both within 2 s, its sockets closed, and gone from the list', async () => {
    const name = await project();
    const { id, token } = await issue(name, 'developer');
    for (const server of [a, b]) expect((await apiAs(server.url, token).get(`/api/v1/projects/${name}`)).status).toBe(200);
    const socket = await connect(`${b.wsBase}/ws?ticket=${(await apiAs(b.url, token).post('/api/v1/ws/ticket')).body.ticket}`);
    await socket.next((f) => f.type === 'counts_update');

    expect((await admin.del(`/api/v1/projects/${name}/roles/developer/tokens/${id}`)).status).toBe(204);
    expect(await refusedWithin(b, token, `/api/v1/projects/${name}`)).toBeLessThan(2_000);
    expect(await refusedWithin(a, token, `/api/v1/projects/${name}`)).toBeLessThan(2_000);
    expect((await socket.closed).code).toBe(4401);
    expect((await admin.get(`/api/v1/projects/${name}/roles/developer/tokens`)).body.items).toEqual([]);
  });

  it('its role deleted: 401 on both replicas within 2 s, and a role created again under the name does not revive it', async () => {
    const name = await project();
    const { token } = await issue(name, 'viewer');
    expect((await apiAs(b.url, token).get(`/api/v1/projects/${name}`)).status).toBe(200);
    const current = (await admin.get(`/api/v1/projects/${name}`)).body;
    const roles = current.roles.filter((r: { name: string }) => r.name !== 'viewer');
    expect((await admin.put(`/api/v1/projects/${name}`, { roles, resourceVersion: current.resourceVersion })).status).toBe(200);
    expect(await refusedWithin(b, token, `/api/v1/projects/${name}`)).toBeLessThan(2_000);
    expect(await refusedWithin(a, token, `/api/v1/projects/${name}`)).toBeLessThan(2_000);

    const again = (await admin.get(`/api/v1/projects/${name}`)).body;
    const viewer = current.roles.find((r: { name: string }) => r.name === 'viewer');
    expect((await admin.put(`/api/v1/projects/${name}`, { roles: [...again.roles, viewer], resourceVersion: again.resourceVersion })).status).toBe(200);
    expect((await apiAs(a.url, token).get(`/api/v1/projects/${name}`)).status).toBe(401);
    expect((await admin.get(`/api/v1/projects/${name}/roles/viewer/tokens`)).body.items).toEqual([]);
  });

  it('follows the role\'s policies as they change, and goes with its project', async () => {
    const name = await project();
    const { token } = await issue(name, 'developer');
    const ci = apiAs(b.url, token);
    const current = (await admin.get(`/api/v1/projects/${name}`)).body;
    const roles = current.roles.map((r: { name: string }) => (r.name === 'developer' ? { ...r, policies: ['instances/*, get, allow'] } : r));
    expect((await admin.put(`/api/v1/projects/${name}`, { roles, resourceVersion: current.resourceVersion })).status).toBe(200);
    const deadline = Date.now() + 2_000;
    let status = 0;
    while (Date.now() < deadline && (status = (await ci.post('/api/v1/instances', webApp(`${name}-late`, name))).status) !== 403) await new Promise((r) => setTimeout(r, 25));
    expect(status).toBe(403);

    expect((await admin.del(`/api/v1/projects/${name}`)).status).toBe(204);
    expect(await refusedWithin(b, token, '/api/v1/projects')).toBeLessThan(2_000);
  });

  it('expires when asked to (at most a year), and refuses a malformed lifetime', async () => {
    const name = await project();
    const created = await issue(name, 'viewer', { expiresIn: '30d' });
    expect(Date.parse(created.expiresAt!) - Date.parse(created.issuedAt)).toBe(30 * 86_400_000);
    for (const expiresIn of ['366d', '30 days', '0d', '-1h']) {
      const res = await admin.post(`/api/v1/projects/${name}/roles/viewer/tokens`, { expiresIn });
      expect(res.status, expiresIn).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    }
  });

  it('is managed by Server Admins and roles allowed members/*, never by other members; unknown roles are 404', async () => {
    const name = await project();
    const [lead, developer] = await Promise.all([createUser(a, 'lead'), createUser(a, 'dev')]);
    await admin.post(`/api/v1/projects/${name}/roles/platform-admin/users/${lead.username}`);
    await admin.post(`/api/v1/projects/${name}/roles/developer/users/${developer.username}`);
    const made = await lead.post(`/api/v1/projects/${name}/roles/developer/tokens`, {});
    expect(made.status).toBe(201);
    expect((await developer.post(`/api/v1/projects/${name}/roles/developer/tokens`, {})).status).toBe(403);
    expect((await developer.get(`/api/v1/projects/${name}/roles/developer/tokens`)).status).toBe(403);
    expect((await developer.del(`/api/v1/projects/${name}/roles/developer/tokens/${made.body.id}`)).status).toBe(403);
    expect((await lead.post(`/api/v1/projects/${name}/roles/no-such-role/tokens`, {})).status).toBe(404);
    expect((await lead.del(`/api/v1/projects/${name}/roles/developer/tokens/${made.body.id}`)).status).toBe(204);
  });

  it('records when it was last used, and cannot sign out (a pipeline\'s token is revoked by those who manage it)', async () => {
    const name = await project();
    const { id, token } = await issue(name, 'viewer');
    const ci = apiAs(a.url, token);
    expect((await ci.get(`/api/v1/projects/${name}`)).status).toBe(200);
    const logout = await ci.post('/api/v1/auth/logout');
    expect(logout.status).toBe(400);
    expect(logout.body.message).toContain(`/api/v1/projects/${name}/roles/viewer/tokens/${id}`);
    expect((await ci.get(`/api/v1/projects/${name}`)).status).toBe(200);
    const [item] = (await admin.get(`/api/v1/projects/${name}/roles/viewer/tokens`)).body.items;
    expect(Date.now() - Date.parse(item.lastUsedAt)).toBeLessThan(60_000);
  });
});
