import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubernetesCluster } from '../../../core/src/adapters/kubernetes/index.js';
import { startFakeKubeApi, type FakeKubeApi } from '../../../core/test/support/fake-kube-api.js';
import type { Cluster } from '@portico/core';
import { until } from '../../../core/test/support/eventually.js';
import { startPorticoStack, type PorticoStack } from '../hostile/stack.js';

describe('Kubernetes API outage: writes answer 503, /readyz says so, recovery without a restart', () => {
  let api: FakeKubeApi;
  let cluster: Cluster;
  let stack: PorticoStack;
  let auth: Record<string, string>;

  const createProject = (name: string) =>
    fetch(`${stack.url}/api/v1/projects`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name, destinations: [{ namespace: 'dev' }] }),
      signal: AbortSignal.timeout(5000),
    });

  beforeAll(async () => {
    api = await startFakeKubeApi({ bookmarkIntervalMs: 200 });
    cluster = createKubernetesCluster({ inCluster: false, kubeConfig: api.kubeConfig, requestTimeoutMs: 1000 });
    stack = await startPorticoStack({ cluster, env: { PORTICO_CLUSTER: 'kubernetes' } });
    auth = { authorization: `Bearer ${await stack.adminToken()}` };
  });

  afterAll(async () => {
    await api?.setDown(false).catch(() => undefined);
    await stack?.close();
    await cluster?.close();
    await api?.stop();
  });

  it('writes through to the cluster while it is up', async () => {
    expect((await createProject('alpha')).status).toBe(201);
    expect((await fetch(`${stack.url}/readyz`)).status).toBe(200);
  });

  it('answers 503 with Retry-After on writes while the API server is unreachable, and /readyz names the cluster', async () => {
    await api.setDown(true);
    const created = await createProject('beta');
    expect(created.status).toBe(503);
    expect(Number(created.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await created.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: expect.any(Object) });

    const removed = await fetch(`${stack.url}/api/v1/projects/alpha`, { method: 'DELETE', headers: auth, signal: AbortSignal.timeout(5000) });
    expect(removed.status).toBe(503);
    expect(Number(removed.headers.get('retry-after'))).toBeGreaterThan(0);

    const ready = await fetch(`${stack.url}/readyz`);
    expect(ready.status).toBe(503);
    const body = await ready.json();
    expect(body.components.cluster.ok).toBe(false);
    expect(body.components.keyvalue.ok).toBe(true);
  });

  it('takes writes again once the API server is back, with no restart', async () => {
    await api.setDown(false);
    await until(async () => (await fetch(`${stack.url}/readyz`)).status === 200, '/readyz to recover', { timeoutMs: 20_000, intervalMs: 100 });
    expect((await createProject('beta')).status).toBe(201);
    const names = async () => ((await (await fetch(`${stack.url}/api/v1/projects`, { headers: auth })).json()).items as { name: string }[]).map((p) => p.name).sort();
    await until(async () => JSON.stringify(await names()) === '["alpha","beta"]', 'both projects to be listed', { timeoutMs: 20_000, intervalMs: 100 });
  });
});
