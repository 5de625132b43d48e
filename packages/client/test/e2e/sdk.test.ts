import { enterpriseFamilies, historyCsvColumns, routes, type Instance, type ServerMessage } from '@portico/api';
import { enterpriseRoutes, type EnterpriseRouteDef } from '@portico/api/enterprise';
import { createClient, loginLocal, type PorticoClient } from '@portico/client';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, expectApiError, nextMatching } from './helpers.js';
import { startPorticoServer, type PorticoProcess } from './portico-server.js';
import { recordingFetch, routeIdOf, uncoveredRoutes } from './route-coverage.js';

// The SDK against the REAL server (the built bin, spawned): every route of the contract is called through the
// SDK, and the last test proves it from what the recording fetch saw.

type InstanceUpdateMessage = Extract<ServerMessage, { type: 'instance_update' }>;
type DeployProgressMessage = Extract<ServerMessage, { type: 'deploy_progress' }>;

let server: PorticoProcess;
let admin: PorticoClient;
const seen = new Set<string>();
const fetch = recordingFetch(seen);

const clientWith = (token?: string) => createClient({ baseUrl: server.url, token, fetch });
const signIn = async (username: string, password: string) => clientWith((await loginLocal(server.url, username, password, { fetch })).token);

beforeAll(async () => {
  server = await startPorticoServer();
  admin = await signIn('admin', server.adminPassword);
});

afterAll(async () => {
  await server?.stop();
});

describe('route recorder (the coverage check below relies on it)', () => {
  it('maps requests to route ids, literal paths before parameters', () => {
    expect(routeIdOf('GET', 'http://h/api/v1/rgds/count')).toBe('countRgds');
    expect(routeIdOf('GET', 'http://h/api/v1/rgds/web-app')).toBe('getRgd');
    expect(routeIdOf('GET', 'http://h/api/v1/instances/count?x=1')).toBe('countInstances');
    expect(routeIdOf('DELETE', 'http://h/api/v1/instances/_/TenantNamespace/t1')).toBe('deleteClusterInstance');
    expect(routeIdOf('GET', 'http://h/ws?ticket=x')).toBeUndefined();
  });
});

describe('operations', () => {
  it('healthz answers ok and readyz lists its components', async () => {
    expect(await admin.health.live()).toEqual({ status: 'ok' });
    const ready = await admin.health.ready();
    expect(ready.status).toBe('ok');
    expect(ready.components.cluster).toEqual(expect.objectContaining({ ok: true }));
    expect(ready.components.keyvalue).toEqual(expect.objectContaining({ ok: true }));
  });

  it('version names the server release to a signed-in caller only', async () => {
    const serverPkg = JSON.parse(readFileSync(new URL('../../../server/package.json', import.meta.url), 'utf8')) as { version: string };
    expect(await admin.health.version()).toEqual({ version: serverPkg.version });
    await expect(createClient({ baseUrl: server.url, fetch }).health.version()).rejects.toMatchObject({ status: 401 });
  });
});

describe('authentication', () => {
  it('signs in the admin with a one-hour token and the serveradmin role', async () => {
    const res = await loginLocal(server.url, 'admin', server.adminPassword, { fetch });
    expect(res.token.split('.')).toHaveLength(3);
    const lifetimeMs = Date.parse(res.expiresAt) - Date.now();
    expect(lifetimeMs).toBeGreaterThan(55 * 60_000);
    expect(lifetimeMs).toBeLessThanOrEqual(60 * 60_000 + 5_000);
    expect(res.user.id).toBe('admin');
    expect(res.user.casbinRoles).toContain('role:serveradmin');
  });

  it('gives a wrong password and an unknown user the same 401', async () => {
    const wrongPassword = await expectApiError(admin.auth.login({ username: 'admin', password: 'not-the-password' }), 401, 'UNAUTHORIZED');
    const unknownUser = await expectApiError(admin.auth.login({ username: 'nobody', password: 'not-the-password' }), 401, 'UNAUTHORIZED');
    expect(unknownUser.message).toBe(wrongPassword.message);
  });

  it('refuses a call without a token with 401, keeping the request id the caller sent', async () => {
    const error = await expectApiError(clientWith().projects.list({ headers: { 'x-request-id': 'sdk-e2e-request-1' } }), 401, 'UNAUTHORIZED');
    expect(error.requestId).toBe('sdk-e2e-request-1');
  });

  it('serves the sign-in options in both forms, with local login on and no identity provider', async () => {
    expect(await admin.auth.providers()).toEqual({ providers: [], options: [], localLoginEnabled: true });
    expect(await admin.auth.providerList()).toEqual([]);
  });

  it('issues a single-use WebSocket ticket that expires within a minute', async () => {
    const first = await admin.auth.wsTicket();
    const second = await admin.auth.wsTicket();
    expect(first.ticket.length).toBeGreaterThanOrEqual(16);
    expect(second.ticket).not.toBe(first.ticket);
    const ttl = Date.parse(first.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('refuses a token exchange for a code nobody issued', async () => {
    // No identity provider is configured, so no one-time code can exist.
    await expectApiError(admin.auth.tokenExchange('not-a-real-code'), 400, 'BAD_REQUEST');
  });

  it('answers an OIDC sign-in with an error envelope when no identity provider is configured', async () => {
    expect(admin.auth.oidcLoginUrl({ provider: 'corp', redirect: '/catalog' })).toBe(
      `${server.url}/api/v1/auth/oidc/login?provider=corp&redirect=%2Fcatalog`,
    );
    await expectApiError(admin.request('oidcLogin', { query: { redirect: '/' } }), 400, 'BAD_REQUEST');
    const unknown = await expectApiError(admin.request('oidcLogin', { query: { provider: 'corp', redirect: '/' } }), 404, 'NOT_FOUND');
    expect(unknown.details).toEqual(expect.objectContaining({ identifier: 'corp' }));
    await expectApiError(admin.request('oidcCallback', { query: { code: 'abc', state: 'def' } }), 400, 'BAD_REQUEST');
  });

  it('logout revokes the token at once', async () => {
    const session = await signIn('admin', server.adminPassword);
    expect((await session.account.info()).userID).toBe('admin');
    expect((await session.auth.logout()).message).toMatch(/\S/);
    await expectApiError(session.account.info(), 401, 'UNAUTHORIZED');
    // the admin's other session is untouched
    expect((await admin.account.info()).userID).toBe('admin');
  });
});

describe('local accounts', () => {
  it('creates an account (201), lists it, and refuses a duplicate with 409', async () => {
    const created = await admin.accounts.create({ username: 'erin', password: 'erin-password-1', groups: ['qa-team'] });
    expect(created).toEqual(expect.objectContaining({ username: 'erin', groups: ['qa-team'] }));
    const { items, totalCount } = await admin.accounts.list();
    expect(items.map((a) => a.username)).toContain('erin');
    expect(totalCount).toBe(items.length);
    await expectApiError(admin.accounts.create({ username: 'erin', password: 'erin-password-2' }), 409, 'CONFLICT');
  });

  it('validates new accounts field by field', async () => {
    const error = await expectApiError(admin.accounts.create({ username: 'Bad Name', password: 'short' }), 400, 'VALIDATION_FAILED');
    expect(Object.keys(error.details.fields as object)).toEqual(expect.arrayContaining(['username', 'password']));
  });

  it('keeps account management to server admins', async () => {
    const erin = await signIn('erin', 'erin-password-1');
    await expectApiError(erin.accounts.list(), 403, 'FORBIDDEN');
    await expectApiError(erin.accounts.create({ username: 'mallory', password: 'mallory-password' }), 403, 'FORBIDDEN');
  });

  it('changing the password ends the earlier sessions and the old password', async () => {
    const erin = await signIn('erin', 'erin-password-1');
    await erin.accounts.changePassword({ currentPassword: 'erin-password-1', newPassword: 'erin-password-2' });
    await expectApiError(erin.account.info(), 401, 'UNAUTHORIZED');
    await expectApiError(admin.auth.login({ username: 'erin', password: 'erin-password-1' }), 401, 'UNAUTHORIZED');
    const again = await signIn('erin', 'erin-password-2');
    expect((await again.account.info()).userID).toBe('erin');
  });

  it('deleting an account (204) ends its sessions', async () => {
    await admin.accounts.create({ username: 'gone', password: 'gone-password-1' });
    const gone = await signIn('gone', 'gone-password-1');
    expect((await gone.account.info()).userID).toBe('gone');
    await admin.accounts.delete('gone');
    await expectApiError(gone.account.info(), 401, 'UNAUTHORIZED');
    await expectApiError(admin.accounts.delete('gone'), 404, 'NOT_FOUND');
  });
});

describe('account and can-i', () => {
  it('describes the caller in both forms', async () => {
    const formB = await admin.account.info();
    const formA = await admin.request('getAccount');
    expect(formB).toEqual(expect.objectContaining({ userID: 'admin', serverAdmin: true }));
    expect(formB.casbinRoles).toContain('role:serveradmin');
    expect(formB.tokenExpiresAt * 1000).toBeGreaterThan(Date.now());
    expect(formA).toEqual(formB);
  });

  it('answers can-i with yes/no (a no is not an error) and 404 for an unknown project', async () => {
    const erin = await signIn('erin', 'erin-password-2');
    expect(await admin.account.canI('projects', 'create', '*')).toBe(true);
    expect(await erin.account.canI('projects', 'create', '*')).toBe(false);
    // A project erin is not in is hidden from her exactly like one that does not exist.
    await expectApiError(erin.account.canI('instances', 'create', 'default'), 404, 'NOT_FOUND');
    await expectApiError(erin.account.canI('instances', 'create', 'no-such-project'), 404, 'NOT_FOUND');
  });

  it('summarises permissions per project', async () => {
    const summary = await admin.account.canISummary();
    expect(summary.serverAdmin).toBe(true);
    const erin = await signIn('erin', 'erin-password-2');
    expect(await erin.account.canISummary()).toEqual({ serverAdmin: false, projects: {} });
  });
});

describe('catalog', () => {
  it('lists a page with the envelope and a total that matches count()', async () => {
    const page = await admin.rgds.list();
    const count = await admin.rgds.count();
    expect(count).toBeGreaterThanOrEqual(10);
    expect(page.totalCount).toBe(count);
    expect(page.page).toBe(1);
    expect(page.pageSize).toBe(20);
    expect(page.items.length).toBe(Math.min(20, count));
  });

  it('filters by category, search, tags and extendsKind', async () => {
    const databases = await admin.rgds.list({ category: 'databases' });
    expect(databases.items.length).toBeGreaterThan(0);
    expect(databases.items.every((r) => r.category === 'databases')).toBe(true);
    expect(databases.items.map((r) => r.name)).toContain('postgres-database');
    expect(databases.totalCount).toBe(databases.items.length);

    const search = await admin.rgds.list({ search: 'REDIS' });
    expect(search.items.map((r) => r.name)).toContain('redis-cache');

    const extending = await admin.rgds.list({ extendsKind: 'WebApp' });
    expect(extending.items.map((r) => r.name)).toEqual(['webapp-monitoring']);

    const web = await admin.rgds.list({ category: 'web', sortBy: 'name', sortOrder: 'desc' });
    const names = web.items.map((r) => r.name);
    expect(names).toEqual([...names].sort().reverse());
  });

  it('iterates every RGD across pages with all()', async () => {
    const names: string[] = [];
    for await (const rgd of admin.rgds.all({ pageSize: 3 })) names.push(rgd.name);
    expect(names.length).toBe(await admin.rgds.count());
    expect(new Set(names).size).toBe(names.length);
  });

  it('serves the filter values', async () => {
    const filters = await admin.rgds.filters();
    expect(filters.categories).toEqual(expect.arrayContaining(['databases', 'web', 'platform']));
    expect(filters.tags.length).toBeGreaterThan(0);
  });

  it('gets one RGD with its values schema', async () => {
    const rgd = await admin.rgds.get('web-app');
    expect(rgd.kind).toBe('WebApp');
    expect(rgd.isClusterScoped).toBe(false);
    expect(rgd.schema).toEqual(expect.objectContaining({ type: 'object', required: expect.arrayContaining(['image']) }));
    expect(rgd.resources.length).toBeGreaterThan(0);
    const missing = await expectApiError(admin.rgds.get('no-such-rgd'), 404, 'NOT_FOUND');
    expect(missing.details).toEqual(expect.objectContaining({ identifier: 'no-such-rgd' }));
  });

  it('rejects an out-of-range page size with 400 naming the parameter', async () => {
    const error = await expectApiError(admin.rgds.list({ pageSize: 501 }), 400, 'VALIDATION_FAILED');
    expect(JSON.stringify(error.details)).toContain('pageSize');
  });
});

describe('projects and membership', () => {
  const project = 'sdk-e2e';

  it('creates a project (201) with the conventional roles and refuses a duplicate', async () => {
    const created = await admin.projects.create({
      name: project,
      description: 'SDK end-to-end',
      destinations: [{ namespace: 'dev' }, { namespace: 'team-a-*' }],
    });
    expect(created.name).toBe(project);
    expect(created.createdBy).toBe('admin');
    expect(created.roles.map((r) => r.name)).toEqual(expect.arrayContaining(['platform-admin', 'developer', 'viewer']));
    await expectApiError(admin.projects.create({ name: project }), 409, 'CONFLICT');
    const invalid = await expectApiError(admin.projects.create({ name: 'Not_A_Label' }), 400, 'VALIDATION_FAILED');
    expect(invalid.details.fields).toHaveProperty('name');
  });

  it('lists and gets it', async () => {
    const { items, totalCount } = await admin.projects.list();
    expect(items.map((p) => p.name)).toEqual(expect.arrayContaining(['default', project]));
    expect(totalCount).toBe(items.length);
    expect((await admin.projects.get(project)).description).toBe('SDK end-to-end');
  });

  it('updates with the current resourceVersion and refuses a stale one with 409', async () => {
    const current = await admin.projects.get(project);
    const updated = await admin.projects.update(project, { description: 'changed', resourceVersion: current.resourceVersion });
    expect(updated.description).toBe('changed');
    expect(updated.resourceVersion).not.toBe(current.resourceVersion);
    await expectApiError(admin.projects.update(project, { description: 'stale', resourceVersion: current.resourceVersion }), 409, 'CONFLICT');
  });

  it('expands destination patterns into real namespaces', async () => {
    const res = await admin.projects.namespaces(project);
    expect([...res.namespaces].sort()).toEqual(['dev', 'team-a-dev', 'team-a-prod']);
    expect(res.count).toBe(3);
  });

  it('binds and unbinds a user; the change applies on the next request', async () => {
    await admin.accounts.create({ username: 'frank', password: 'frank-password-1' });
    const frank = await signIn('frank', 'frank-password-1');
    await expectApiError(frank.account.canI('instances', 'create', project), 404, 'NOT_FOUND'); // not a member: hidden

    const binding = await admin.projects.bindUser(project, 'developer', 'frank');
    expect(binding).toEqual({ project, role: 'developer', type: 'user', subject: 'frank' });
    expect((await admin.projects.roleBindings(project)).bindings).toContainEqual({ role: 'developer', type: 'user', subject: 'frank' });
    expect(await frank.account.canI('instances', 'create', project)).toBe(true);
    expect((await frank.projects.list()).items.map((p) => p.name)).toEqual([project]);
    expect((await frank.account.canISummary()).projects[project]?.role).toBe('developer');
    // members may see the bindings of their project
    expect((await frank.projects.roleBindings(project)).project).toBe(project);

    await admin.projects.unbindUser(project, 'developer', 'frank');
    await expectApiError(frank.account.canI('instances', 'create', project), 404, 'NOT_FOUND'); // not a member: hidden
    expect((await admin.projects.roleBindings(project)).bindings).not.toContainEqual(expect.objectContaining({ subject: 'frank' }));
  });

  it('binds and unbinds a group through the accounts that belong to it', async () => {
    const erin = await signIn('erin', 'erin-password-2'); // groups: qa-team
    await expectApiError(erin.account.canI('instances', 'get', project), 404, 'NOT_FOUND'); // not a member: hidden
    const binding = await admin.projects.bindGroup(project, 'viewer', 'qa-team');
    expect(binding).toEqual({ project, role: 'viewer', type: 'group', subject: 'qa-team' });
    expect(await erin.account.canI('instances', 'get', project)).toBe(true);
    expect(await erin.account.canI('instances', 'create', project)).toBe(false);
    await admin.projects.unbindGroup(project, 'viewer', 'qa-team');
    await expectApiError(erin.account.canI('instances', 'get', project), 404, 'NOT_FOUND'); // not a member: hidden
  });

  it('refuses a binding to an undefined role (400) or in an unknown project (404), and binding changes by non-admins (403)', async () => {
    await expectApiError(admin.projects.bindUser(project, 'no-such-role', 'frank'), 400, 'BAD_REQUEST');
    await expectApiError(admin.projects.bindUser('no-such-project', 'developer', 'frank'), 404, 'NOT_FOUND');
    const frank = await signIn('frank', 'frank-password-1');
    await admin.projects.bindUser(project, 'developer', 'frank');
    await expectApiError(frank.projects.bindUser(project, 'developer', 'erin'), 403, 'FORBIDDEN');
    await admin.projects.unbindUser(project, 'developer', 'frank');
  });

  it('issues a token acting as one role of the project, lists it without the token, and revokes it at once (§14)', async () => {
    const issued = await admin.projects.tokens.create(project, 'developer', { description: 'sdk pipeline', expiresIn: '30d' });
    const pipeline = clientWith(issued.token);
    expect((await pipeline.instances.list({ project })).totalCount).toBe(0);
    await expectApiError(pipeline.projects.tokens.create(project, 'developer'), 403, 'FORBIDDEN');
    const { items } = await admin.projects.tokens.list(project, 'developer');
    expect(items).toEqual([expect.objectContaining({ id: issued.id, description: 'sdk pipeline', createdBy: 'admin' })]);
    expect(JSON.stringify(items)).not.toContain(issued.token);
    await admin.projects.tokens.delete(project, 'developer', issued.id);
    await expectApiError(pipeline.instances.list({ project }), 401, 'UNAUTHORIZED');
    expect((await admin.projects.tokens.list(project, 'developer')).items).toEqual([]);
  });

  it('deletes a project (204); it is gone afterwards', async () => {
    await admin.projects.delete(project);
    await expectApiError(admin.projects.get(project), 404, 'NOT_FOUND');
  });
});

describe('instances', () => {
  const isUpdateOf = (name: string) => (m: ServerMessage): m is InstanceUpdateMessage => m.type === 'instance_update' && m.data.name === name;
  let webApp: Instance;

  it('creates a namespaced instance (createNamespaced) and sees it become Healthy over events.subscribe', async () => {
    const sub = admin.events.subscribe({ resourceType: 'instances', project: 'default' }, { controlFrames: true });
    try {
      await nextMatching(sub, (m): m is Extract<ServerMessage, { type: 'subscribed' }> => m.type === 'subscribed', 'the subscribed reply');
      webApp = await admin.instances.create({
        kind: 'WebApp',
        name: 'shop',
        project: 'default',
        namespace: 'dev',
        values: { image: 'ghcr.io/acme/shop:1.4.2', replicas: 3 },
      });
      expect(webApp).toEqual(
        expect.objectContaining({ name: 'shop', namespace: 'dev', kind: 'WebApp', rgdName: 'web-app', project: 'default', deploymentMode: 'direct', createdBy: 'admin' }),
      );
      expect(webApp.spec).toEqual(expect.objectContaining({ image: 'ghcr.io/acme/shop:1.4.2', replicas: 3, port: 8080 }));

      const progress = await nextMatching(
        sub,
        (m): m is DeployProgressMessage => m.type === 'deploy_progress' && m.data.name === 'shop',
        'deploy_progress for shop',
      );
      expect(progress.data.totalResources).toBeGreaterThan(0);
      const healthy = await nextMatching(
        sub,
        (m): m is InstanceUpdateMessage => isUpdateOf('shop')(m) && m.data.instance.health === 'Healthy',
        'instance_update with shop Healthy',
      );
      expect(healthy.data).toEqual(expect.objectContaining({ namespace: 'dev', kind: 'WebApp', project: 'default' }));
      expect(healthy.data.instance.status.state).toBe('ACTIVE');
    } finally {
      sub.close();
    }
  });

  it('creates by RGD name with the flat body (createFlat), through create() and createFlat()', async () => {
    const viaCreate = await admin.instances.create({ rgdName: 'redis-cache', name: 'cache', project: 'default', namespace: 'dev', values: {} });
    expect(viaCreate).toEqual(expect.objectContaining({ kind: 'RedisCache', rgdName: 'redis-cache', namespace: 'dev', project: 'default' }));
    expect(viaCreate.spec).toEqual(expect.objectContaining({ maxMemory: '256mb' }));
    const viaFlat = await admin.instances.createFlat({
      rgdName: 'postgres-database',
      name: 'orders-db',
      project: 'default',
      namespace: 'staging',
      values: { databaseName: 'orders', passwordSecret: 'orders-pw' },
      deploymentMode: 'direct',
    });
    expect(viaFlat).toEqual(expect.objectContaining({ kind: 'PostgresDatabase', namespace: 'staging', deploymentMode: 'direct' }));
    expect(viaFlat.spec).toEqual(expect.objectContaining({ databaseName: 'orders', version: '16' }));
  });

  it('creates, reads, patches and deletes a cluster-scoped instance (the _ paths)', async () => {
    const ref = { kind: 'TenantNamespace', name: 'team-z' };
    const created = await admin.instances.create({ ...ref, project: 'default', values: { team: 'team-z', adminGroup: 'team-z-admins' } });
    expect(created).toEqual(expect.objectContaining({ namespace: '', isClusterScoped: true, rgdName: 'tenant-namespace' }));
    expect((await admin.instances.get(ref)).name).toBe('team-z');
    const patched = await admin.instances.patch(ref, { environment: 'staging' });
    expect(patched.spec).toEqual(expect.objectContaining({ environment: 'staging', team: 'team-z' }));
    const deleted = await admin.instances.delete(ref);
    expect(deleted.name).toBe('team-z');
    await eventually(() => admin.instances.get(ref).then(() => undefined, (e: { status?: number }) => (e.status === 404 ? true : undefined)), 'team-z to be gone');
  });

  it('lists with filters, iterates with all(), and counts', async () => {
    const webApps = await admin.instances.list({ project: 'default', kind: 'WebApp' });
    expect(webApps.items.map((i) => i.name)).toEqual(['shop']);
    expect(webApps.totalCount).toBe(1);
    const inDev = await admin.instances.list({ namespace: 'dev', sortBy: 'name' });
    expect(inDev.items.map((i) => i.name)).toEqual(['cache', 'shop']);
    const healthy = await admin.instances.list({ health: 'Healthy', search: 'shop' });
    expect(healthy.items.map((i) => i.name)).toEqual(['shop']);

    const all: string[] = [];
    for await (const i of admin.instances.all({ pageSize: 1 })) all.push(i.name);
    expect(all.sort()).toEqual(['cache', 'orders-db', 'shop']);
    expect(await admin.instances.count()).toBe(3);
  });

  it('gets and merge-patches a namespaced instance; a stale resourceVersion gives 409', async () => {
    const ref = { kind: 'WebApp', name: 'shop', namespace: 'dev' };
    const current = await admin.instances.get(ref);
    expect(current.uid).toBe(webApp.uid);
    expect(current.health).toBe('Healthy');
    const patched = await admin.instances.patch(ref, { replicas: 5 }, { resourceVersion: current.resourceVersion });
    expect(patched.spec).toEqual(expect.objectContaining({ replicas: 5, image: 'ghcr.io/acme/shop:1.4.2' }));
    await expectApiError(admin.instances.patch(ref, { replicas: 4 }, { resourceVersion: current.resourceVersion }), 409, 'CONFLICT');
  });

  it('applies the creation checks: schema (every bad field), destinations, deployment modes, names, RBAC', async () => {
    const invalid = await expectApiError(
      admin.instances.create({ kind: 'WebApp', name: 'bad', project: 'default', namespace: 'dev', values: { replicas: 99 } }),
      400,
      'VALIDATION_FAILED',
    );
    expect(Object.keys(invalid.details.fields as object)).toEqual(expect.arrayContaining(['spec.image', 'spec.replicas']));

    const elsewhere = await expectApiError(
      admin.instances.create({ kind: 'WebApp', name: 'far', project: 'default', namespace: 'prod', values: { image: 'x' } }),
      403,
      'FORBIDDEN',
    );
    expect(elsewhere.details.allowed).toEqual(['dev', 'staging']);

    await expectApiError(
      admin.instances.create({
        kind: 'PostgresDatabase',
        name: 'pg',
        project: 'default',
        namespace: 'dev',
        values: { databaseName: 'x', passwordSecret: 'y' },
        deploymentMode: 'hybrid',
      }),
      422,
      'DEPLOYMENT_MODE_NOT_ALLOWED',
    );
    await expectApiError(
      admin.instances.create({ kind: 'WebApp', name: 'shop', project: 'default', namespace: 'dev', values: { image: 'x' } }),
      409,
      'CONFLICT',
    );
    await expectApiError(admin.instances.create({ kind: 'NoSuchKind', name: 'x', project: 'default', namespace: 'dev' }), 404, 'NOT_FOUND');

    const frank = await signIn('frank', 'frank-password-1'); // no role in default
    await expectApiError(
      frank.instances.create({ kind: 'WebApp', name: 'sneaky', project: 'default', namespace: 'dev', values: { image: 'x' } }),
      403,
      'FORBIDDEN',
    );
    expect((await frank.instances.list()).totalCount).toBe(0);
    await expectApiError(frank.instances.get({ kind: 'WebApp', name: 'shop', namespace: 'dev' }), 404, 'NOT_FOUND');
  });

  it('deletes a namespaced instance; it disappears from reads and lists', async () => {
    const ref = { kind: 'WebApp', name: 'shop', namespace: 'dev' };
    const deleted = await admin.instances.delete(ref);
    expect(deleted.uid).toBe(webApp.uid);
    await eventually(() => admin.instances.get(ref).then(() => undefined, (e: { status?: number }) => (e.status === 404 ? true : undefined)), 'shop to be gone');
    expect((await admin.instances.list({ kind: 'WebApp' })).totalCount).toBe(0);
  });
});

describe('deploy forms and instance history', () => {
  it('reads an RGD\'s deploy form, resource graph and revisions', async () => {
    const form = await admin.rgds.schema('web-app');
    expect(form.crdFound).toBe(true);
    expect(form.schema.kind).toBe('WebApp');
    expect(form.schema.propertyOrder).toEqual(Object.keys(form.schema.properties));
    expect(form.schema.required).toContain('image');
    const graph = await admin.rgds.graph('web-app');
    expect(graph.resources.length).toBeGreaterThan(0);
    for (const edge of graph.edges) expect(graph.resources.find((r) => r.id === edge.to)?.dependsOn).toContain(edge.from);
    const revisions = await eventually(async () => {
      const list = await admin.rgds.revisions('web-app');
      return list.totalCount > 0 ? list : undefined;
    }, 'the first revision');
    expect(revisions.items[0]).toEqual(expect.objectContaining({ revisionNumber: revisions.totalCount, contentHash: expect.stringMatching(/^[0-9a-f]{64}$/) }));
    const first = await admin.rgds.revision('web-app', 1);
    expect(first.snapshot).toEqual(expect.objectContaining({ resources: expect.any(Array) }));
    expect(await admin.rgds.diff('web-app', 1, 1)).toEqual(expect.objectContaining({ rev1: 1, rev2: 1, identical: true, added: [], removed: [], modified: [] }));
    await expectApiError(admin.rgds.schema('no-such-rgd'), 404, 'NOT_FOUND');
  });

  it('reads the timeline, children and Events of a namespaced instance', async () => {
    const ref = { kind: 'RedisCache', namespace: 'dev', name: 'cache' };
    await eventually(async () => ((await admin.instances.timeline(ref)).timeline.some((e) => e.eventType === 'Ready') ? true : undefined), 'the Ready entry');
    expect((await admin.instances.timeline(ref)).timeline[0]).toEqual(expect.objectContaining({ eventType: 'Created', user: 'admin' }));
    expect((await admin.instances.history(ref)).events.map((e) => e.eventType)).toContain('Ready');
    const children = await admin.instances.children(ref);
    expect(children.groups.every((g) => g.health === 'Healthy' || g.health === 'None')).toBe(true);
    const events = await admin.instances.events(ref);
    expect(events.events.map((e) => e.reason)).toContain('Ready');
    const download = await admin.instances.exportHistory(ref, 'json');
    expect(download.filename).toBe('cache-deployment-history.json');
    expect(JSON.parse(await new Response(download.body).text())).toEqual(expect.objectContaining({ instanceName: 'cache', events: expect.any(Array) }));
  });

  it('creates, reads, patches and deletes a cluster-scoped instance on the `_`-less aliases, with its history on the `_` paths', async () => {
    const params = { kind: 'TenantNamespace', name: 'team-alias' };
    const created = await admin.request('createClusterInstanceAlias', {
      params: { kind: params.kind },
      body: { name: params.name, project: 'default', values: { team: 'team-alias', adminGroup: 'alias-admins' } },
    });
    expect(created).toEqual(expect.objectContaining({ name: 'team-alias', isClusterScoped: true }));
    expect((await admin.request('getClusterInstanceAlias', { params })).name).toBe('team-alias');
    const patched = await admin.request('patchClusterInstanceAlias', { params, body: { spec: { environment: 'staging' } } });
    expect(patched.spec).toEqual(expect.objectContaining({ environment: 'staging' }));
    const ref = { kind: params.kind, name: params.name };
    await eventually(async () => ((await admin.instances.events(ref)).events.some((e) => e.reason === 'Ready') ? true : undefined), 'the Ready event');
    expect((await admin.instances.children(ref)).totalCount).toBeGreaterThan(0);
    await eventually(async () => ((await admin.instances.timeline(ref)).timeline.some((e) => e.eventType === 'Updated') ? true : undefined), 'the Updated entry');
    expect((await admin.instances.history(ref)).events[0]).toEqual(expect.objectContaining({ eventType: 'Created', user: 'admin' }));
    const csv = await admin.instances.exportHistory(ref, 'csv');
    expect([csv.filename, (await new Response(csv.body).text()).split('\r\n')[0]]).toEqual(['team-alias-deployment-history.csv', historyCsvColumns.join(',')]);
    // The `_`-less aliases of the history routes answer the same as the `_` paths.
    expect((await admin.request('clusterInstanceHistoryAlias', { params })).events).toEqual((await admin.instances.history(ref)).events);
    expect((await admin.request('clusterInstanceTimelineAlias', { params, query: {} })).timeline.length).toBeGreaterThan(0);
    expect((await admin.request('clusterInstanceChildrenAlias', { params })).instanceKind).toBe('TenantNamespace');
    expect((await admin.request('clusterInstanceEventsAlias', { params })).events.length).toBeGreaterThan(0);
    // The alias of the export is a download like the `_` one (the SDK method uses the `_` path).
    const { token } = await loginLocal(server.url, 'admin', server.adminPassword, { fetch });
    const aliased = await fetch(`${server.url}/api/v1/instances/TenantNamespace/team-alias/history/export?format=json`, { headers: { authorization: `Bearer ${token}` } });
    expect([aliased.status, aliased.headers.get('content-disposition')]).toEqual([200, 'attachment; filename="team-alias-deployment-history.json"']);
    expect(await aliased.json()).toEqual(expect.objectContaining({ instanceName: 'team-alias' }));
    expect((await admin.request('deleteClusterInstanceAlias', { params })).name).toBe('team-alias');
  });
});

describe('waitFor', () => {
  it('resolves once the instance reaches the health asked for, and times out with TIMEOUT otherwise', async () => {
    const created = await admin.instances.create({ kind: 'WebApp', name: 'waited', project: 'default', namespace: 'dev', values: { image: 'ghcr.io/acme/w:1' } });
    expect(created.health).not.toBe('Healthy');
    const healthy = await admin.waitFor(created, 'Healthy', { timeoutMs: 30_000 });
    expect(healthy).toMatchObject({ name: 'waited', namespace: 'dev', health: 'Healthy' });
    await expect(admin.waitFor(created, (i) => i.health === 'Degraded', { timeoutMs: 400 })).rejects.toMatchObject({ code: 'TIMEOUT', status: 0 });
  });

  it('rejects with NOT_FOUND when the instance is deleted while waiting', async () => {
    const ref = { kind: 'WebApp', name: 'waited', namespace: 'dev', project: 'default' };
    const waiting = admin.waitFor(ref, () => false, { timeoutMs: 30_000, pollMs: 200 });
    await admin.instances.delete(ref);
    await expect(waiting).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('secrets', () => {
  it('creates, lists without values, reveals, replaces and deletes a project secret', async () => {
    const created = await admin.secrets.create('default', { name: 'db', namespace: 'dev', data: { password: 'p1' } });
    expect(created).toMatchObject({ name: 'db', namespace: 'dev', keys: ['password'] });
    const list = await admin.secrets.list('default');
    expect(list.items.map((s) => s.name)).toContain('db');
    expect(JSON.stringify(list)).not.toContain('p1');
    expect((await admin.secrets.get('default', 'dev', 'db')).data).toBeUndefined();
    expect((await admin.secrets.get('default', 'dev', 'db', { reveal: true })).data).toEqual({ password: 'p1' });
    const replaced = await admin.secrets.update('default', 'dev', 'db', { data: { token: 't' }, resourceVersion: created.resourceVersion });
    expect(replaced.keys).toEqual(['token']);
    await admin.secrets.delete('default', 'dev', 'db');
    await expectApiError(admin.secrets.get('default', 'dev', 'db'), 404, 'NOT_FOUND');
  });

  it('speaks the field\'s secrets paths (§11.3 family 2) through request()', async () => {
    const where = { params: { secret: 'api' }, query: { project: 'default', namespace: 'dev' } };
    await admin.request('createSecretInProject', { query: { project: 'default' }, body: { name: 'api', namespace: 'dev', data: { token: 't1' } } });
    expect((await admin.request('listSecretsOfProject', { query: { project: 'default', limit: 500 } })).items.map((s) => s.name)).toContain('api');
    await admin.request('secretExists', where);
    await admin.request('upsertSecretKeys', { params: { secret: 'api' }, query: { project: 'default' }, body: { namespace: 'dev', data: { user: 'u' } } });
    expect((await admin.request('getSecretWithData', where)).data).toEqual({ token: 't1', user: 'u' });
    expect(await admin.request('deleteSecretOfProject', where)).toEqual({ deleted: true, warnings: [] });
    await expectApiError(admin.request('secretExists', where), 404, 'NOT_FOUND');
  });
});

describe('enterprise families in the OSS build', () => {
  it.each(Object.entries(enterpriseFamilies))('%s answers its OSS status as a PorticoApiError', async (_name, family) => {
    const { feature, ossStatus } = family;
    // The SDK's own call for a route of the family (the Enterprise table's first GET without parameters there).
    const route = (enterpriseRoutes as readonly EnterpriseRouteDef[]).find((r) => r.family === _name && r.method === 'GET' && !r.params)!;
    const error = await expectApiError(admin.request(route.id as never), ossStatus, ossStatus === 402 ? 'LICENSE_REQUIRED' : 'NOT_FOUND');
    // 402 names the feature; 404 is the plain unknown-route answer, so nothing tells the family apart from a typo.
    expect(error.details).toMatchObject(ossStatus === 402 ? { feature } : { resource: 'route' });
  });
});

describe('preflight, settings, preferences, icons and cluster kinds (§11.4, §11.5, §11.7)', () => {
  it('preflight checks a create on every path family and writes nothing', async () => {
    expect((await admin.instances.preflight({ kind: 'WebApp', namespace: 'dev', name: 'sdk-preflight', project: 'default', values: { image: 'nginx' } })).valid).toBe(true);
    const tenant = { project: 'default', values: { team: 'sdk', adminGroup: 'sdk-admins' } };
    expect((await admin.instances.preflight({ kind: 'TenantNamespace', ...tenant })).valid).toBe(true);
    expect((await admin.request('clusterInstancePreflightAlias', { params: { kind: 'TenantNamespace' }, body: tenant })).valid).toBe(true);
    await expectApiError(admin.instances.get({ kind: 'WebApp', namespace: 'dev', name: 'sdk-preflight' }), 404, 'NOT_FOUND');
  });

  it('reads the settings, stores preferences, fetches a public icon and lists the cluster\'s kinds', async () => {
    expect(await admin.settings.get()).toEqual({ organization: 'default' });
    expect(await admin.preferences.update({ favoriteRgds: ['web-app', 'web-app'] })).toEqual({ favoriteRgds: ['web-app'], recentRgds: [] });
    expect(await admin.preferences.get()).toEqual({ favoriteRgds: ['web-app'], recentRgds: [] });
    expect(await createClient({ baseUrl: server.url, fetch }).icons.get('database')).toMatch(/^<svg /);
    expect((await admin.kubernetes.apiResources({ apiGroup: 'core' })).resources).toContainEqual({ apiGroup: '', kind: 'Secret' });
  });
});

describe('repositories (§13)', () => {
  it('registers, reads, lists, changes, tests and removes a repository; no answer holds its credentials', async () => {
    // `.invalid` never resolves: registering does not contact the remote, testing reports the unknown host.
    const repoURL = 'https://git.portico.invalid/platform/deploys.git';
    const created = await admin.repositories.create({ name: 'SDK deploys', projectId: 'default', repoURL, authType: 'https', httpsAuth: { username: 'ci', password: 'sdk-repo-password' } });
    expect(created).toMatchObject({ projectId: 'default', repoURL, authType: 'https', defaultBranch: 'main', validationStatus: 'unknown' });
    expect(await admin.repositories.get(created.id)).toEqual(created);
    expect((await admin.repositories.list({ projectId: 'default' })).items.map((r) => r.id)).toContain(created.id);
    expect((await admin.repositories.update(created.id, { defaultBranch: 'release' })).defaultBranch).toBe('release');
    const tested = await admin.repositories.test(created.id);
    expect(tested).toMatchObject({ valid: false, details: { repository: repoURL, branch: 'release' } });
    expect(tested.message).toContain('unknown host');
    // A loopback remote is refused before anything is contacted (PORTICO_GIT_ALLOWED_HOSTS is not set here).
    await expectApiError(admin.repositories.testConnection({ repoURL: 'https://127.0.0.1/x.git', authType: 'https' }), 400, 'BAD_REQUEST');
    await admin.repositories.delete(created.id);
    await expectApiError(admin.repositories.get(created.id), 404, 'NOT_FOUND');
    expect(JSON.stringify([created, tested])).not.toContain('sdk-repo-password');
  });
});

describe('sign-in providers managed at run time (§11.6)', () => {
  it('adds, reads, changes and removes a provider; the public list shows it without its secret', async () => {
    const input = {
      name: 'sdk-dex', issuerURL: 'https://dex.example.com', clientID: 'portico', clientSecret: 'sdk-client-secret',
      redirectURL: `${server.url}/api/v1/auth/oidc/callback`, scopes: ['openid', 'email'],
    };
    const created = await admin.ssoProviders.create(input);
    expect(created).toMatchObject({ name: 'sdk-dex', clientID: 'portico', tokenEndpointAuthMethod: 'client_secret_basic' });
    const anonymous = createClient({ baseUrl: server.url, fetch });
    expect((await anonymous.ssoProviders.list()).map((p) => p.name)).toEqual(['sdk-dex']);
    expect(await admin.ssoProviders.get('sdk-dex')).toEqual(created);
    const changed = await admin.ssoProviders.update('sdk-dex', { ...input, name: undefined, clientSecret: '', displayName: 'Dex' });
    expect(changed.displayName).toBe('Dex');
    await expectApiError(admin.ssoProviders.create(input), 409, 'CONFLICT');
    await admin.ssoProviders.delete('sdk-dex');
    await expectApiError(admin.ssoProviders.get('sdk-dex'), 404, 'NOT_FOUND');
    expect(JSON.stringify([created, changed])).not.toContain('sdk-client-secret');
  });
});

describe('coverage', () => {
  // Runs last (tests in a file run in order): every route of the contract must have gone through the SDK.
  it('the SDK called every route of the contract during this suite', () => {
    expect(uncoveredRoutes(seen)).toEqual([]);
  });
});
