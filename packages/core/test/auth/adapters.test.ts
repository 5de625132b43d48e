import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedCluster } from '../../src/adapters/embedded-cluster/index.js';
import { createMemoryKeyValue } from '../../src/adapters/memory-kv.js';
import { createRedisKeyValue } from '../../src/adapters/redis-kv.js';
import { ACCOUNTS_SECRET, ADMIN_SECRET, createAuth } from '../../src/auth/index.js';
import { resources, type Cluster } from '../../src/ports/cluster.js';
import type { KeyValue } from '../../src/ports/keyvalue.js';
import { captureLogger, fakeAuthorizer, testConfig } from './fakes.js';
import { ctx, rejection } from './setup.js';

// The auth module over the real adapters: the embedded cluster's secret store and the key-value stores.
const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function start(cluster: Cluster, kv: KeyValue, env: Record<string, string> = {}) {
  const { logger, lines } = captureLogger();
  const auth = await createAuth({ config: testConfig(env), cluster, kv, authz: fakeAuthorizer(), logger });
  return { auth, lines };
}

describe('auth over the embedded cluster', () => {
  it('keeps the admin password and accounts across a restart of a persisted embedded cluster', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'portico-auth-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const kv = createMemoryKeyValue();
    cleanup.push(() => kv.close());

    const cluster1 = await createEmbeddedCluster({ dataDir });
    const first = await start(cluster1, kv);
    const notice = first.lines.find((l) => 'password' in l)!;
    const password = notice.password as string;
    const admin = await first.auth.verifyToken((await first.auth.localLogin({ username: 'admin', password }, ctx)).token);
    await first.auth.accounts.create(admin, { username: 'robot', password: 'robot-password', groups: ['ci'] });
    const secret = await cluster1.get(resources.secret, ADMIN_SECRET, 'portico-test');
    expect(secret?.type).toBe('Opaque');
    await cluster1.close();

    const cluster2 = await createEmbeddedCluster({ dataDir });
    cleanup.push(() => cluster2.close());
    const second = await start(cluster2, kv);
    expect(second.lines.some((l) => 'password' in l)).toBe(false);
    await expect(second.auth.localLogin({ username: 'admin', password }, ctx)).resolves.toBeDefined();
    const robot = await second.auth.localLogin({ username: 'robot', password: 'robot-password' }, ctx);
    expect(robot.user.groups).toEqual(['ci']);
    expect(await cluster2.get(resources.secret, ACCOUNTS_SECRET, 'portico-test')).toBeDefined();
  });
});

describe('auth over Redis', () => {
  it('a logout on one replica is honoured by another at once (shared revocation)', async () => {
    const prefix = `portico-test:${process.pid}:${randomUUID()}:`;
    const kvA = createRedisKeyValue({ address: '127.0.0.1:6379', prefix });
    const kvB = createRedisKeyValue({ address: '127.0.0.1:6379', prefix });
    cleanup.push(() => kvA.close(), () => kvB.close());
    const cluster = await createEmbeddedCluster();
    cleanup.push(() => cluster.close());

    const env = { ADMIN_PASSWORD: 'redis-test-password' };
    const a = await start(cluster, kvA, env);
    const b = await start(cluster, kvB, env);
    const { token } = await a.auth.localLogin({ username: 'admin', password: 'redis-test-password' }, ctx);
    const actor = await b.auth.verifyToken(token);

    // A ticket issued on one replica is redeemable once, on any replica.
    const { ticket } = await a.auth.issueTicket(actor);
    await expect(b.auth.redeemTicket(ticket)).resolves.toMatchObject({ id: 'admin' });
    expect((await rejection(a.auth.redeemTicket(ticket))).code).toBe('UNAUTHORIZED');

    await b.auth.logout(actor);
    expect((await rejection(a.auth.verifyToken(token))).code).toBe('UNAUTHORIZED');
    // Clean up the revocation marker this test wrote.
    await kvA.del(`revoked:${actor.tokenId}`);
  });
});
