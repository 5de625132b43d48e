import { describe, expect, it } from 'vitest';
import { ACCOUNTS_SECRET, ADMIN_SECRET, INVALID_TOKEN } from '../../src/auth/index.js';
import { unavailable } from '../../src/errors.js';
import { fakeAuthorizer } from './fakes.js';
import { ctx, rejection, secretData, startReplica, startWorld } from './setup.js';

const login = (w: Awaited<ReturnType<typeof startWorld>>, username: string, password: string) =>
  w.auth.localLogin({ username, password }, ctx);

async function withAdmin(opts: Parameters<typeof startWorld>[0] = {}) {
  const w = await startWorld(opts);
  const admin = await w.auth.verifyToken((await w.adminLogin()).token);
  return { ...w, admin };
}

describe('local accounts (Server Admin)', () => {
  it('creates, lists and deletes accounts; the hash is stored, never the password', async () => {
    const w = await withAdmin();
    const created = await w.auth.accounts.create(w.admin, { username: 'ci-robot', password: 'robot-password-1', groups: ['ci', 'ci'] });
    expect(created).toEqual({ username: 'ci-robot', groups: ['ci'], createdAt: new Date(w.now()).toISOString() });
    await w.auth.accounts.create(w.admin, { username: 'alice', password: 'alice-password', groups: [] });

    const list = await w.auth.accounts.list(w.admin);
    expect(list.items.map((a) => a.username)).toEqual(['admin', 'alice', 'ci-robot']);
    expect(list.totalCount).toBe(3);

    const stored = JSON.parse(secretData(w.cluster, ACCOUNTS_SECRET)['ci-robot']);
    expect(stored).toMatchObject({ hash: expect.stringMatching(/^scrypt\$/), groups: ['ci'] });
    expect(JSON.stringify(w.cluster.objects.get([...w.cluster.objects.keys()].find((k) => k.endsWith(ACCOUNTS_SECRET))!))).not.toContain('robot-password-1');

    const robot = await login(w, 'ci-robot', 'robot-password-1');
    expect(robot.user).toMatchObject({ id: 'ci-robot', groups: ['ci'], casbinRoles: [] });
    const actor = await w.auth.verifyToken(robot.token);
    expect(actor).toMatchObject({ subject: 'user:ci-robot', groups: ['ci'], local: true });

    await expect(w.auth.accounts.delete(w.admin, 'ci-robot')).resolves.toBeUndefined();
    expect((await w.auth.accounts.list(w.admin)).items.map((a) => a.username)).toEqual(['admin', 'alice']);
    expect((await rejection(w.auth.accounts.delete(w.admin, 'ci-robot'))).code).toBe('NOT_FOUND');
  });

  it('refuses non-admins with 403, whatever they ask', async () => {
    const w = await withAdmin();
    await w.auth.accounts.create(w.admin, { username: 'bob', password: 'bob-password', groups: [] });
    const bob = await w.auth.verifyToken((await login(w, 'bob', 'bob-password')).token);
    expect((await rejection(w.auth.accounts.list(bob))).code).toBe('FORBIDDEN');
    expect((await rejection(w.auth.accounts.create(bob, { username: 'eve', password: 'eve-password', groups: [] }))).code).toBe('FORBIDDEN');
    expect((await rejection(w.auth.accounts.delete(bob, 'bob'))).code).toBe('FORBIDDEN');
    expect((await w.auth.accounts.list(w.admin)).items.map((a) => a.username)).toEqual(['admin', 'bob']);
  });

  it('a group-granted Server Admin may manage accounts too', async () => {
    const w = await withAdmin({ authz: fakeAuthorizer({ serverAdmins: ['group:platform'] }) });
    await w.auth.accounts.create(w.admin, { username: 'ops', password: 'ops-password', groups: ['platform'] });
    const ops = await w.auth.verifyToken((await login(w, 'ops', 'ops-password')).token);
    await expect(w.auth.accounts.create(ops, { username: 'dev', password: 'dev-password', groups: [] })).resolves.toMatchObject({ username: 'dev' });
  });

  it('409 for an existing username, the admin included', async () => {
    const w = await withAdmin();
    await w.auth.accounts.create(w.admin, { username: 'carol', password: 'carol-password', groups: [] });
    for (const username of ['carol', 'admin']) {
      const e = await rejection(w.auth.accounts.create(w.admin, { username, password: 'another-password', groups: [] }));
      expect(e.code).toBe('CONFLICT');
    }
    // The original password still works: the duplicate did not overwrite anything.
    await expect(login(w, 'carol', 'carol-password')).resolves.toBeDefined();
    await expect(w.adminLogin()).resolves.toBeDefined();
  });

  it('validates input like the server does', async () => {
    const w = await withAdmin();
    const e = await rejection(w.auth.accounts.create(w.admin, { username: 'Bad Name', password: 'short', groups: [] }));
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(Object.keys((e as unknown as { details: { fields: object } }).details.fields).sort()).toEqual(['password', 'username']);
    expect((await rejection(w.auth.accounts.delete(w.admin, '../portico-admin'))).code).toBe('BAD_REQUEST');
    expect((await rejection(w.auth.accounts.delete(w.admin, 'admin'))).code).toBe('BAD_REQUEST');
  });

  it('a deleted account\'s tokens stop working at once, and a re-created namesake does not revive them', async () => {
    const w = await withAdmin();
    await w.auth.accounts.create(w.admin, { username: 'dave', password: 'dave-password', groups: [] });
    const { token } = await login(w, 'dave', 'dave-password');
    await expect(w.auth.verifyToken(token)).resolves.toBeDefined();

    await w.auth.accounts.delete(w.admin, 'dave');
    const e = await rejection(w.auth.verifyToken(token));
    expect(e).toMatchObject({ code: 'UNAUTHORIZED', message: INVALID_TOKEN });
    expect((await rejection(login(w, 'dave', 'dave-password'))).code).toBe('UNAUTHORIZED');

    w.now.advance(5_000);
    await w.auth.accounts.create(w.admin, { username: 'dave', password: 'dave-password', groups: [] });
    expect((await rejection(w.auth.verifyToken(token))).code).toBe('UNAUTHORIZED');
    const fresh = await login(w, 'dave', 'dave-password');
    await expect(w.auth.verifyToken(fresh.token)).resolves.toMatchObject({ id: 'dave' });
  });

  it('a namesake re-created within the same second does not inherit the old account\'s tokens (identity generation)', async () => {
    const w = await withAdmin();
    await w.auth.accounts.create(w.admin, { username: 'frank', password: 'frank-password', groups: [] });
    const old = await login(w, 'frank', 'frank-password');
    await expect(w.auth.verifyToken(old.token)).resolves.toBeDefined();

    // The clock does not move: deletion, re-creation and the old token all fall in one second.
    await w.auth.accounts.delete(w.admin, 'frank');
    await w.auth.accounts.create(w.admin, { username: 'frank', password: 'frank-password', groups: [] });
    expect(await rejection(w.auth.verifyToken(old.token))).toMatchObject({ code: 'UNAUTHORIZED', message: INVALID_TOKEN });
    const fresh = await login(w, 'frank', 'frank-password');
    await expect(w.auth.verifyToken(fresh.token)).resolves.toMatchObject({ id: 'frank' });
  });

  it('another replica stops accepting a deleted account\'s token within its refresh window', async () => {
    const w = await withAdmin({ accountsRefreshMs: 2_000 });
    const other = await startReplica({ cluster: w.cluster, kv: w.kv, now: w.now, accountsRefreshMs: 2_000 });
    await w.auth.accounts.create(w.admin, { username: 'erin', password: 'erin-password', groups: [] });
    const { token } = await login(w, 'erin', 'erin-password');
    w.now.advance(2_001);
    await expect(other.auth.verifyToken(token)).resolves.toBeDefined();

    await w.auth.accounts.delete(w.admin, 'erin');
    w.now.advance(2_001);
    expect((await rejection(other.auth.verifyToken(token))).code).toBe('UNAUTHORIZED');
  });

  it('a short cluster outage does not log local users out, a long one stops verification', async () => {
    const w = await withAdmin({ accountsRefreshMs: 2_000 });
    const { token } = await w.adminLogin();
    const { get } = w.cluster;
    w.cluster.get = async () => {
      throw unavailable('cluster');
    };
    w.now.advance(10_000);
    await expect(w.auth.verifyToken(token)).resolves.toBeDefined();
    w.now.advance(30_000);
    expect((await rejection(w.auth.verifyToken(token))).code).toBe('SERVICE_UNAVAILABLE');
    w.cluster.get = get;
    await expect(w.auth.verifyToken(token)).resolves.toBeDefined();
  });

  it('token verification reads accounts from memory, not the cluster, within the refresh window', async () => {
    const w = await withAdmin({ accountsRefreshMs: 2_000 });
    const { token } = await w.adminLogin();
    await w.auth.verifyToken(token);
    const before = w.cluster.calls.get;
    for (let i = 0; i < 20; i++) await w.auth.verifyToken(token);
    expect(w.cluster.calls.get).toBe(before);
  });
});

describe('changing one\'s password', () => {
  it('invalidates earlier tokens and the old password; the new one works right away', async () => {
    const w = await withAdmin();
    await w.auth.accounts.create(w.admin, { username: 'frank', password: 'old-password', groups: ['dev'] });
    const old = await login(w, 'frank', 'old-password');
    const frank = await w.auth.verifyToken(old.token);

    const res = await w.auth.accounts.changePassword(frank, { currentPassword: 'old-password', newPassword: 'new-password' });
    expect(res.message).toMatch(/sign in again/);

    expect((await rejection(w.auth.verifyToken(old.token))).message).toBe(INVALID_TOKEN);
    expect((await rejection(login(w, 'frank', 'old-password'))).code).toBe('UNAUTHORIZED');
    // Same second as the change: the new token must still be good.
    const fresh = await login(w, 'frank', 'new-password');
    await expect(w.auth.verifyToken(fresh.token)).resolves.toMatchObject({ id: 'frank', groups: ['dev'] });
    w.now.advance(1_500);
    await expect(w.auth.verifyToken(fresh.token)).resolves.toBeDefined();
  });

  it('a second change within the same second still cuts off the token issued in between', async () => {
    const w = await withAdmin();
    await w.auth.accounts.create(w.admin, { username: 'ivan', password: 'first-password', groups: [] });
    const ivan = await w.auth.verifyToken((await login(w, 'ivan', 'first-password')).token);
    await w.auth.accounts.changePassword(ivan, { currentPassword: 'first-password', newPassword: 'second-password' });
    const between = await login(w, 'ivan', 'second-password');
    const ivan2 = await w.auth.verifyToken(between.token);
    await w.auth.accounts.changePassword(ivan2, { currentPassword: 'second-password', newPassword: 'third-password' });
    expect((await rejection(w.auth.verifyToken(between.token))).code).toBe('UNAUTHORIZED');
    await expect(w.auth.verifyToken((await login(w, 'ivan', 'third-password')).token)).resolves.toBeDefined();
  });

  it('refuses a wrong current password (401) and leaves the password unchanged', async () => {
    const w = await withAdmin();
    await w.auth.accounts.create(w.admin, { username: 'gina', password: 'gina-password', groups: [] });
    const { token } = await login(w, 'gina', 'gina-password');
    const gina = await w.auth.verifyToken(token);
    const e = await rejection(w.auth.accounts.changePassword(gina, { currentPassword: 'wrong-password', newPassword: 'whatever-password' }));
    expect(e.code).toBe('UNAUTHORIZED');
    await expect(w.auth.verifyToken(token)).resolves.toBeDefined();
    await expect(login(w, 'gina', 'gina-password')).resolves.toBeDefined();
  });

  it('is for local users only', async () => {
    const w = await withAdmin();
    const sso = { ...w.admin, id: 'jane@example.com', subject: 'user:jane@example.com', local: false };
    expect((await rejection(w.auth.accounts.changePassword(sso, { currentPassword: 'x', newPassword: 'whatever-password' }))).code).toBe('FORBIDDEN');
  });

  it('the admin changes their own password, stored in the admin secret', async () => {
    const w = await withAdmin();
    const hashBefore = secretData(w.cluster, ADMIN_SECRET).password;
    const { token } = await w.adminLogin();
    await w.auth.accounts.changePassword(w.admin, { currentPassword: w.adminPassword, newPassword: 'brand-new-admin-pw' });

    expect(secretData(w.cluster, ADMIN_SECRET).password).not.toBe(hashBefore);
    expect(secretData(w.cluster, ACCOUNTS_SECRET)).not.toHaveProperty('admin');
    expect((await rejection(w.auth.verifyToken(token))).code).toBe('UNAUTHORIZED');
    expect((await rejection(w.adminLogin())).code).toBe('UNAUTHORIZED');
    await expect(login(w, 'admin', 'brand-new-admin-pw')).resolves.toMatchObject({ user: { id: 'admin' } });

    // A restart keeps the changed password (ADMIN_PASSWORD does not reset it).
    const restarted = await startReplica({ cluster: w.cluster, kv: w.kv, now: w.now, env: { ADMIN_PASSWORD: w.adminPassword } });
    await expect(restarted.auth.localLogin({ username: 'admin', password: 'brand-new-admin-pw' }, ctx)).resolves.toBeDefined();
  });
});
