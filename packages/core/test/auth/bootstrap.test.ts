import { describe, expect, it } from 'vitest';
import { ADMIN_SECRET, INITIAL_ADMIN_SECRET, SIGNING_KEY_SECRET } from '../../src/auth/index.js';
import { notFound } from '../../src/errors.js';
import { fakeClock, fakeCluster, fakeKeyValue } from './fakes.js';
import { ctx, rejection, secretData, startReplica } from './setup.js';

const world = () => {
  const now = fakeClock();
  return { now, cluster: fakeCluster(), kv: fakeKeyValue(now) };
};

const passwordNotices = (lines: Array<Record<string, unknown>>) => lines.filter((l) => 'password' in l);

describe('first start', () => {
  it('generates an admin password, logs it once at warn level, and it signs in', async () => {
    const w = world();
    const first = await startReplica(w);
    const notices = passwordNotices(first.lines);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ level: 40, username: 'admin', msg: expect.stringContaining('shown only once') });
    const password = notices[0].password as string;
    expect(password.length).toBeGreaterThanOrEqual(24);

    const login = await first.auth.localLogin({ username: 'admin', password }, ctx);
    expect(login.user.id).toBe('admin');

    const stored = secretData(w.cluster, ADMIN_SECRET);
    expect(stored.password).toMatch(/^scrypt\$/);
    expect(stored.password).not.toContain(password);
    expect(Date.parse(stored.createdAt)).toBe(w.now());
  });

  it('keeps a generated password readable in the initial-admin Secret until the admin changes it', async () => {
    const w = world();
    const first = await startReplica(w);
    const password = passwordNotices(first.lines)[0].password as string;
    expect(secretData(w.cluster, INITIAL_ADMIN_SECRET).password).toBe(password);

    const admin = await first.auth.verifyToken((await first.auth.localLogin({ username: 'admin', password }, ctx)).token);
    await first.auth.accounts.changePassword(admin, { currentPassword: password, newPassword: 'a-new-admin-password' });
    expect(secretData(w.cluster, INITIAL_ADMIN_SECRET).password).toBeUndefined();
  });

  it('a second start on the same cluster does not print a password and keeps the stored one', async () => {
    const w = world();
    const first = await startReplica(w);
    const password = passwordNotices(first.lines)[0].password as string;
    const hashBefore = secretData(w.cluster, ADMIN_SECRET).password;

    const second = await startReplica(w);
    expect(passwordNotices(second.lines)).toHaveLength(0);
    expect(JSON.stringify(second.lines)).not.toContain(password);
    expect(secretData(w.cluster, ADMIN_SECRET).password).toBe(hashBefore);
    await expect(second.auth.localLogin({ username: 'admin', password }, ctx)).resolves.toMatchObject({ user: { id: 'admin' } });
  });

  it('uses ADMIN_PASSWORD when nothing is stored, without printing it', async () => {
    const w = world();
    const replica = await startReplica({ ...w, env: { ADMIN_PASSWORD: 'from-the-environment' } });
    expect(passwordNotices(replica.lines)).toHaveLength(0);
    expect(JSON.stringify(replica.lines)).not.toContain('from-the-environment');
    await expect(replica.auth.localLogin({ username: 'admin', password: 'from-the-environment' }, ctx)).resolves.toBeDefined();
  });

  it('ignores ADMIN_PASSWORD once a password is stored', async () => {
    const w = world();
    const first = await startReplica(w);
    const generated = passwordNotices(first.lines)[0].password as string;

    const second = await startReplica({ ...w, env: { ADMIN_PASSWORD: 'a-later-value' } });
    expect((await rejection(second.auth.localLogin({ username: 'admin', password: 'a-later-value' }, ctx))).code).toBe('UNAUTHORIZED');
    await expect(second.auth.localLogin({ username: 'admin', password: generated }, ctx)).resolves.toBeDefined();
  });

  it('two replicas starting together end with one signing key and one admin password', async () => {
    const w = world();
    const { create } = w.cluster;
    const lostCreates: string[] = [];
    // Hold the first admin-secret create until the other replica tries too, so both really race for it
    // (hashing takes each replica a different time, which would otherwise let one see the other's secret).
    const held: Array<() => void> = [];
    w.cluster.create = async (ref, obj) => {
      if (obj.metadata.name === ADMIN_SECRET) {
        await new Promise<void>((release) => {
          held.push(release);
          if (held.length === 2) held.forEach((r) => r());
        });
      }
      return create(ref, obj).catch((e) => {
        lostCreates.push(obj.metadata.name);
        throw e;
      });
    };
    const [a, b] = await Promise.all([startReplica(w), startReplica(w)]);
    // Both really raced: each secret was created by one replica and refused to the other.
    expect(lostCreates.sort()).toEqual([ADMIN_SECRET, SIGNING_KEY_SECRET]);

    const keys = [...w.cluster.objects.values()].filter((o) => o.metadata.name === SIGNING_KEY_SECRET);
    expect(keys).toHaveLength(1);
    expect(Buffer.from(keys[0].data!.hs256, 'base64').length).toBeGreaterThanOrEqual(32);

    // Exactly one replica printed a password, and it is the one that works on both.
    const notices = [...passwordNotices(a.lines), ...passwordNotices(b.lines)];
    expect(notices).toHaveLength(1);
    const password = notices[0].password as string;
    const fromA = await a.auth.localLogin({ username: 'admin', password }, ctx);
    const fromB = await b.auth.localLogin({ username: 'admin', password }, ctx);

    // Tokens are interchangeable between replicas: they share the key.
    await expect(b.auth.verifyToken(fromA.token)).resolves.toMatchObject({ id: 'admin' });
    await expect(a.auth.verifyToken(fromB.token)).resolves.toMatchObject({ id: 'admin' });
  });

  it('creates Portico\'s namespace when the cluster does not have it yet', async () => {
    const w = world();
    const { create } = w.cluster;
    let namespaceCreated = false;
    // A cluster that refuses secrets in a namespace that does not exist, like Kubernetes does.
    w.cluster.create = async (ref, obj) => {
      if (ref.kind === 'Namespace') namespaceCreated = true;
      else if (ref.kind === 'Secret' && !namespaceCreated) throw notFound('namespace', obj.metadata.namespace!);
      return create(ref, obj);
    };
    await startReplica(w);
    expect(namespaceCreated).toBe(true);
    expect(secretData(w.cluster, SIGNING_KEY_SECRET).hs256).toBeDefined();
  });
});
