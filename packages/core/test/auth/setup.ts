import { createAuth, type Auth } from '../../src/auth/index.js';
import type { Cluster } from '../../src/ports/cluster.js';
import type { KeyValue } from '../../src/ports/keyvalue.js';
import type { Authorizer } from '../../src/types.js';
import { captureLogger, fakeAuthorizer, fakeClock, fakeCluster, fakeKeyValue, testConfig } from './fakes.js';

export const ctx = { ip: '203.0.113.7', requestId: 'req-1' };

export interface Replica {
  auth: Auth;
  lines: Array<Record<string, unknown>>;
}

/** One Portico replica's auth module over shared fakes. */
export async function startReplica(shared: {
  cluster: Cluster;
  kv: KeyValue;
  now: () => number;
  env?: Record<string, string>;
  authz?: Authorizer;
  accountsRefreshMs?: number;
}): Promise<Replica> {
  const { logger, lines } = captureLogger();
  const auth = await createAuth({
    config: testConfig(shared.env),
    cluster: shared.cluster,
    kv: shared.kv,
    authz: shared.authz ?? fakeAuthorizer(),
    logger,
    now: shared.now,
    accountsRefreshMs: shared.accountsRefreshMs,
  });
  return { auth, lines };
}

/** A fresh world (cluster, KV, clock) and one replica started with ADMIN_PASSWORD. */
export async function startWorld(opts: { authz?: Authorizer; accountsRefreshMs?: number } = {}) {
  const now = fakeClock();
  const cluster = fakeCluster();
  const kv = fakeKeyValue(now);
  const adminPassword = 'correct horse battery staple';
  const replica = await startReplica({ cluster, kv, now, env: { ADMIN_PASSWORD: adminPassword }, ...opts });
  const adminLogin = () => replica.auth.localLogin({ username: 'admin', password: adminPassword }, ctx);
  return { now, cluster, kv, adminPassword, adminLogin, ...replica };
}

export const secretData = (cluster: ReturnType<typeof fakeCluster>, name: string): Record<string, string> => {
  const obj = [...cluster.objects.values()].find((o) => o.kind === 'Secret' && o.metadata.name === name);
  return Object.fromEntries(Object.entries(obj?.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
};

/** Resolves to the error a promise rejects with (fails the test if it resolves). */
export async function rejection(p: Promise<unknown>): Promise<{ code: string; message: string; status: number }> {
  try {
    await p;
  } catch (e) {
    return e as { code: string; message: string; status: number };
  }
  throw new Error('expected a rejection');
}
