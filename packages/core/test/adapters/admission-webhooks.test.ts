import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedCluster, type AdmissionRequest, type EmbeddedCluster } from '../../src/adapters/embedded-cluster/index.js';
import { createKubernetesCluster } from '../../src/adapters/kubernetes/index.js';
import { createLogger } from '../../src/logger.js';
import { resources, type Cluster, type KubeObject } from '../../src/ports/cluster.js';
import { startFakeKubeApi, type FakeKubeApi } from '../support/fake-kube-api.js';

// Validating admission webhooks (OPA Gatekeeper's) review updates as well as creates, and a refusal reaches
// Portico's callers as their 403 on either cluster adapter: the embedded cluster runs its webhooks itself; on
// the Kubernetes adapter the API server answers 403 "admission webhook ... denied the request".

const ref = resources.project;
const project = (name: string, tier: string): KubeObject => ({
  apiVersion: 'portico.dev/v1alpha1',
  kind: 'Project',
  metadata: { name, namespace: 'portico' },
  spec: { tier, destinations: [], roles: [] },
});
/** What a policy says: `tier: forbidden` is not allowed (Gatekeeper's message format: `[constraint] message`). */
const verdict = (obj: { spec?: { tier?: string } }) => (obj.spec?.tier === 'forbidden' ? '[no-forbidden-tier] tier "forbidden" is not allowed' : undefined);

describe('the embedded cluster runs its admission webhooks on updates too', () => {
  let cluster: EmbeddedCluster;
  const seen: Array<{ operation: string; tier?: string; oldTier?: string }> = [];
  beforeAll(async () => {
    cluster = await createEmbeddedCluster();
    cluster.addAdmissionWebhook((_ref, obj, request: AdmissionRequest) => {
      seen.push({ operation: request.operation, tier: obj.spec?.tier, oldTier: request.oldObject?.spec?.tier });
      const denied = verdict(obj);
      if (denied) throw Object.assign(new Error(denied), { code: 'FORBIDDEN' });
    });
  });
  afterAll(() => cluster?.close());

  it('reviews the object as the patch would leave it, with the one it replaces; a refusal changes nothing', async () => {
    const created = await cluster.create(ref, project('reviewed', 'gold'));
    expect(seen.at(-1)).toEqual({ operation: 'CREATE', tier: 'gold', oldTier: undefined });
    await expect(cluster.patch(ref, 'reviewed', { spec: { tier: 'forbidden' } }, { namespace: 'portico' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(seen.at(-1)).toEqual({ operation: 'UPDATE', tier: 'forbidden', oldTier: 'gold' });
    expect(await cluster.get(ref, 'reviewed', 'portico')).toMatchObject({ spec: { tier: 'gold' }, metadata: { resourceVersion: created.metadata.resourceVersion } });
    const fine = await cluster.patch(ref, 'reviewed', { spec: { tier: 'silver' } }, { namespace: 'portico' });
    expect(fine.spec.tier).toBe('silver');
    expect(seen.at(-1)).toEqual({ operation: 'UPDATE', tier: 'silver', oldTier: 'gold' });
  });

  it('a status-only write (the /status subresource in Kubernetes) and a no-op are not reviewed', async () => {
    await cluster.create(ref, project('quiet', 'gold'));
    const before = seen.length;
    await cluster.patch(ref, 'quiet', { status: { phase: 'Ready' } }, { namespace: 'portico' });
    await cluster.patch(ref, 'quiet', { spec: { tier: 'gold' } }, { namespace: 'portico' });
    expect(seen.length).toBe(before);
  });
});

describe('the Kubernetes adapter maps a webhook refusal to the caller\'s 403', () => {
  let api: FakeKubeApi;
  let cluster: Cluster;
  beforeAll(async () => {
    api = await startFakeKubeApi();
    cluster = createKubernetesCluster({ inCluster: false, kubeConfig: api.kubeConfig, logger: createLogger('silent'), requestTimeoutMs: 5_000 });
    api.setAdmissionWebhook({ name: 'validation.gatekeeper.sh', review: ({ object }) => verdict(object) });
  });
  afterAll(async () => {
    await cluster?.close();
    await api?.stop();
  });

  it('an update the webhook denies is 403 FORBIDDEN with the violations, and the object is unchanged', async () => {
    const created = await cluster.create(ref, project('guarded', 'gold'));
    const refused = await cluster.patch(ref, 'guarded', { spec: { tier: 'forbidden' } }, { namespace: 'portico' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toMatchObject({
      code: 'FORBIDDEN',
      message: 'admission webhook "validation.gatekeeper.sh" denied the request: [no-forbidden-tier] tier "forbidden" is not allowed',
      details: { webhook: 'validation.gatekeeper.sh', violations: [{ constraintName: 'no-forbidden-tier', message: 'tier "forbidden" is not allowed' }] },
    });
    expect(await cluster.get(ref, 'guarded', 'portico')).toMatchObject({ spec: { tier: 'gold' }, metadata: { resourceVersion: created.metadata.resourceVersion } });
    // A create it denies, the same.
    await expect(cluster.create(ref, project('refused', 'forbidden'))).rejects.toMatchObject({ code: 'FORBIDDEN', details: { webhook: 'validation.gatekeeper.sh' } });
  });

  it('any other 403 is still Portico\'s own RBAC problem: 500, never blamed on the caller', async () => {
    api.failNext(1, 403);
    await expect(cluster.get(ref, 'guarded', 'portico')).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
  });
});
