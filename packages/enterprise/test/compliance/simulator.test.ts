import { createEmbeddedCluster, resources, type EmbeddedCluster, type KubeObject, type ResourceRef } from '@portico/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../core/test/support/eventually.js';
import { constraintRefOf } from '../../src/compliance/gatekeeper.js';
import { createGatekeeperSimulator, type GatekeeperSimulator } from '../../src/compliance/index.js';

const catalog = new URL('../../../../examples/catalog', import.meta.url).pathname;
const labelledApp = new URL('./labelled-app.yaml', import.meta.url).pathname;
const appRef: ResourceRef = { group: 'kro.run', version: 'v1alpha1', kind: 'LabelledApp', plural: 'labelledapps', namespaced: true };
const serviceRef: ResourceRef = { group: '', version: 'v1', kind: 'Service', plural: 'services', namespaced: true };

describe('the simulated Gatekeeper on the embedded cluster', () => {
  let cluster: EmbeddedCluster;
  let sim: GatekeeperSimulator & { start(): Promise<void> };
  const served = (kind: string) => eventually(() => cluster.discover('constraints.gatekeeper.sh', 'v1beta1', kind), (ref) => ref !== undefined, `${kind} served`);

  beforeAll(async () => {
    cluster = await createEmbeddedCluster({ manifests: [catalog, labelledApp], kroStepMs: 0 });
    sim = createGatekeeperSimulator(cluster, { debounceMs: 5 });
    cluster.addAdmissionWebhook((ref, obj) => sim.admit(ref, obj));
    await sim.start();
  });
  afterAll(async () => {
    await sim?.close();
    await cluster?.close();
  });

  it('generates each template\'s constraint kind and writes the audit into the constraint status', async () => {
    for (const kind of ['K8sRequiredLabels', 'K8sAllowedRepos', 'K8sContainerLimits', 'K8sBlockNodePort']) await served(kind);
    const constraint = await eventually(
      () => cluster.get(constraintRefOf('K8sRequiredLabels'), 'namespaces-must-have-environment'),
      (c) => c?.status?.totalViolations === 2,
      'the audit of the sample constraint',
    );
    expect(constraint!.status.violations.map((v: { kind: string; name: string }) => `${v.kind}/${v.name}`).sort()).toEqual(['Namespace/default', 'Namespace/portico']);
    expect(constraint!.status.violations[0]).toMatchObject({ enforcementAction: 'dryrun', group: '', version: 'v1', message: expect.stringContaining('portico.dev/environment') });
    expect((await cluster.get({ group: 'templates.gatekeeper.sh', version: 'v1', kind: 'ConstraintTemplate', plural: 'constrainttemplates', namespaced: false }, 'k8sblocknodeport'))?.status).toMatchObject({ created: true });
  });

  it('refuses a create that a deny constraint rejects, as the admission webhook does; dryrun only reports', async () => {
    const ref = (await served('K8sBlockNodePort'))!;
    await cluster.create(ref, { apiVersion: 'constraints.gatekeeper.sh/v1beta1', kind: 'K8sBlockNodePort', metadata: { name: 'no-nodeports' }, spec: { enforcementAction: 'deny', match: { kinds: [{ apiGroups: [''], kinds: ['Service'] }] } } });
    const service = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'dev' }, spec: { type: 'NodePort' } });
    await eventually(() => cluster.create(serviceRef, service('probe')).then(() => 'created', (e: Error) => e.message), (m) => m.includes('admission webhook'), 'the webhook to refuse');
    await expect(cluster.create(serviceRef, service('refused'))).rejects.toMatchObject({ code: 'FORBIDDEN', details: { violations: [expect.objectContaining({ constraintName: 'no-nodeports', kind: 'Service', name: 'refused' })] } });
    expect(await cluster.get(serviceRef, 'refused', 'dev')).toBeUndefined();
  });

  it('refuses an update that a deny constraint rejects, as Gatekeeper\'s webhook does for UPDATE; status writes and finalizer removal on delete pass', async () => {
    const ref = (await served('K8sBlockNodePort'))!;
    const setEnforcement = (enforcementAction: string) => cluster.patch(ref, 'no-nodeports-upd', { spec: { enforcementAction } });
    // The constraint of the test before, on every namespace, would speak here too.
    await cluster.patch(ref, 'no-nodeports', { spec: { enforcementAction: 'dryrun' } });
    await cluster.create(ref, { apiVersion: 'constraints.gatekeeper.sh/v1beta1', kind: 'K8sBlockNodePort', metadata: { name: 'no-nodeports-upd' }, spec: { enforcementAction: 'deny', match: { kinds: [{ apiGroups: [''], kinds: ['Service'] }], namespaces: ['upd'] } } });
    const service = (name: string, type: string): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'upd', finalizers: ['test.portico.dev/hold'] }, spec: { type } });
    await eventually(
      () => cluster.create(serviceRef, service('probe-upd', 'NodePort')).then(() => 'created', (e: Error) => e.message),
      (m) => m.includes('[no-nodeports-upd]') && !m.includes('[no-nodeports]'),
      'the webhook to refuse by this constraint alone',
    );

    // An object that complies, updated so that it would not: refused, and nothing changed.
    const fine = await cluster.create(serviceRef, service('fine', 'ClusterIP'));
    await expect(cluster.patch(serviceRef, 'fine', { spec: { type: 'NodePort' } }, { namespace: 'upd' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining('admission webhook "validation.gatekeeper.sh" denied the request'),
      details: { violations: [expect.objectContaining({ constraintName: 'no-nodeports-upd', kind: 'Service', name: 'fine', enforcementAction: 'deny' })] },
    });
    const after = await cluster.get(serviceRef, 'fine', 'upd');
    expect(after).toMatchObject({ spec: { type: 'ClusterIP' }, metadata: { resourceVersion: fine.metadata.resourceVersion } });
    // An update that keeps it compliant goes through.
    await cluster.patch(serviceRef, 'fine', { metadata: { labels: { tier: 'web' } } }, { namespace: 'upd' });

    // An object that violated before the constraint was deny (created while dryrun): its own updates are refused
    // too, as Gatekeeper reviews the whole object; status writes (the /status subresource) are not reviewed, and
    // once it is being deleted the finalizer's removal lands.
    await setEnforcement('dryrun');
    await eventually(() => cluster.create(serviceRef, service('old', 'NodePort')).then(() => 'created', (e: Error) => e.message), (m) => m === 'created', 'dryrun to let it in');
    await setEnforcement('deny');
    await eventually(() => cluster.patch(serviceRef, 'old', { metadata: { labels: { probe: String(Date.now()) } } }, { namespace: 'upd' }).then(() => 'patched', (e: Error) => e.message), (m) => m.includes('admission webhook'), 'deny again');
    await cluster.patch(serviceRef, 'old', { status: { loadBalancer: {} } }, { namespace: 'upd' });
    await cluster.delete(serviceRef, 'old', 'upd');
    await cluster.patch(serviceRef, 'old', { metadata: { finalizers: [] } }, { namespace: 'upd' });
    expect(await cluster.get(serviceRef, 'old', 'upd')).toBeUndefined();
  });

  it('audits instances through the objects kro would create; an unchanged pass re-judges nothing and writes nothing', async () => {
    const ref = (await served('K8sRequiredLabels'))!;
    const constraints = 40;
    for (let i = 0; i < constraints; i++) {
      await cluster.create(ref, { apiVersion: 'constraints.gatekeeper.sh/v1beta1', kind: 'K8sRequiredLabels', metadata: { name: `owner-${i}` }, spec: { enforcementAction: 'dryrun', match: { kinds: [{ apiGroups: ['apps'], kinds: ['Deployment'] }], namespaces: [`ns-${i}`, 'team-a-dev'] }, parameters: { labels: [{ key: `owner-${i}` }] } } });
    }
    const instances = 500;
    for (let i = 0; i < instances; i++) {
      await cluster.create(appRef, { apiVersion: 'kro.run/v1alpha1', kind: 'LabelledApp', metadata: { name: `app-${i}`, namespace: 'team-a-dev' }, spec: { labels: i % 2 === 0 ? { 'owner-0': 'x' } : {} } });
    }
    // 500 × 40 findings less the 250 instances labelled for owner-0, plus the sample's two unlabelled namespaces.
    const first = await eventually(() => sim.audit(), (r) => r.subjects >= instances && r.violations === instances * constraints - instances / 2 + 2, 'a full audit of every instance');
    const owner0 = await cluster.get(ref, 'owner-0');
    expect(owner0!.status.totalViolations).toBe(instances / 2);
    expect(owner0!.status.violations[0]).toMatchObject({ kind: 'Deployment', namespace: 'team-a-dev', group: 'apps', message: 'you must provide labels: ["owner-0"]' });
    const again = await sim.audit();
    expect(again).toMatchObject({ judged: 0, written: 0, violations: first.violations });
    await cluster.patch(appRef, 'app-1', { spec: { labels: { 'owner-0': 'fixed' } } }, { namespace: 'team-a-dev' });
    await eventually(() => cluster.get(ref, 'owner-0'), (c) => c?.status?.totalViolations === instances / 2 - 1, 'the fix to be audited');
  }, 60_000);
});
