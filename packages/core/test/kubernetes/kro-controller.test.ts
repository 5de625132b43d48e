import { afterEach, describe, expect, it } from 'vitest';
import { createKubernetesCluster } from '../../src/adapters/kubernetes/index.js';
import { createKroController, KRO_FINALIZER, type KroController } from '../../src/adapters/embedded-cluster/kro/index.js';
import { resources, type Cluster, type KubeObject, type ResourceRef, type WatchEvent } from '../../src/ports/cluster.js';
import { startFakeKubeApi, type FakeKubeApi } from '../support/fake-kube-api.js';
import { eventually } from '../support/eventually.js';

/**
 * The simulated kro controller beside Portico, as the real one runs in a cluster: its own client (the Kubernetes
 * adapter) against the API server, reading with informers and writing status with merge patches.
 */

const webAppRef: ResourceRef = { group: 'kro.run', version: 'v1alpha1', kind: 'WebApp', plural: 'webapps', namespaced: true };

const webAppRgd = (name = 'webapp', kind = 'WebApp'): KubeObject => ({
  apiVersion: 'kro.run/v1alpha1',
  kind: 'ResourceGraphDefinition',
  metadata: { name },
  spec: {
    schema: { apiVersion: 'v1alpha1', kind, spec: { name: 'string' } },
    resources: [
      { id: 'service', template: { kind: 'Service', spec: { selector: '${deployment.spec.selector.matchLabels}' } } },
      { id: 'deployment', template: { kind: 'Deployment', spec: { env: '${config.data.url}' } } },
      { id: 'config', template: { kind: 'ConfigMap', data: { url: 'http://${schema.spec.name}' } } },
    ],
  },
});

const webApp = (name: string, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'kro.run/v1alpha1',
  kind: 'WebApp',
  metadata: { name, namespace: 'team-a', ...(annotations ? { annotations } : {}) },
  spec: { name },
});

const condition = (o: KubeObject | undefined, type: string) =>
  (o?.status?.conditions as { type: string; status: string; reason: string; message: string }[] | undefined)?.find((c) => c.type === type);

describe('simulated kro controller over the Kubernetes adapter', () => {
  let api: FakeKubeApi;
  let kubectl: Cluster;
  let kroClient: Cluster | undefined;
  let kro: KroController | undefined;
  const watches: { close(): void }[] = [];

  const startKro = (stepMs = 5) => {
    kroClient = createKubernetesCluster({ inCluster: false, kubeConfig: api.clientConfig('kro'), requestTimeoutMs: 5_000 });
    kro = createKroController(kroClient, { stepMs });
    return kro;
  };

  const get = (name: string) => kubectl.get(webAppRef, name, 'team-a');
  const stateOf = async (name: string) => (await get(name))?.status?.state as string | undefined;

  const record = async (ref: ResourceRef) => {
    const { resourceVersion } = await kubectl.list(ref);
    const events: WatchEvent[] = [];
    // Bookmarks carry no object state and arrive on their own clock; the walk under test is the object's.
    const onEvent = (e: WatchEvent) => { if (e.type !== 'BOOKMARK') events.push(e); };
    watches.push(kubectl.watch(ref, { resourceVersion }, { onEvent, onError: () => undefined }));
    return events;
  };

  const setUp = async () => {
    api = await startFakeKubeApi({ statusSubresource: false, bookmarkIntervalMs: 100 });
    kubectl = createKubernetesCluster({ inCluster: false, kubeConfig: api.kubeConfig, requestTimeoutMs: 5_000 });
  };

  afterEach(async () => {
    for (const w of watches.splice(0)) w.close();
    await kro?.close();
    await kroClient?.close();
    kro = kroClient = undefined;
    await kubectl.close();
    await api.stop();
  });

  it('activates an RGD and walks an instance to ACTIVE one resource per step, writing status with merge patches', async () => {
    await setUp();
    startKro();
    await kubectl.create(resources.rgd, webAppRgd());
    const rgd = await eventually(() => kubectl.get(resources.rgd, 'webapp'), (r) => r?.status?.state === 'Active', 'the RGD to be Active');
    expect(rgd?.status.topologicalOrder).toEqual(['config', 'deployment', 'service']);
    expect(condition(rgd, 'Ready')?.status).toBe('True');

    const events = await record(webAppRef);
    await kubectl.create(webAppRef, webApp('shop'));
    await eventually(() => stateOf('shop'), (s) => s === 'ACTIVE', 'the instance to be ACTIVE');
    const shop = await get('shop');
    expect(shop?.metadata.finalizers).toEqual([KRO_FINALIZER]);
    expect(condition(shop, 'Ready')).toMatchObject({ status: 'True', reason: 'AllResourcesReady' });

    await eventually(async () => events, (e) => e.some((x) => x.object.status?.state === 'ACTIVE'), 'the ACTIVE event');
    const walk = events.map((e) => `${e.type} ${e.object.status?.state ?? '-'} ${condition(e.object, 'ResourcesReady')?.message ?? '-'}`);
    expect(walk).toEqual([
      'ADDED - -',
      'MODIFIED IN_PROGRESS 0/3 resources ready',
      'MODIFIED IN_PROGRESS 1/3 resources ready',
      'MODIFIED IN_PROGRESS 2/3 resources ready',
      'MODIFIED ACTIVE 3/3 resources ready',
    ]);
    const writes = api.requests.filter((r) => r.method === 'PATCH');
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.every((r) => r.contentType === 'application/merge-patch+json' && !r.path.endsWith('/status'))).toBe(true);
  });

  it('picks up instances that exist before it starts, and deletes one through DELETING', async () => {
    await setUp();
    await kubectl.create(resources.rgd, webAppRgd());
    await kubectl.create(webAppRef, webApp('early'));
    startKro();
    await eventually(() => stateOf('early'), (s) => s === 'ACTIVE', 'the existing instance to be ACTIVE');

    const events = await record(webAppRef);
    await kubectl.delete(webAppRef, 'early', 'team-a');
    await eventually(() => get('early'), (o) => o === undefined, 'the instance to be gone');
    await eventually(async () => events, (e) => e.some((x) => x.type === 'DELETED'), 'the DELETED event');
    expect(events.map((e) => `${e.type} ${e.object.status?.state}`)).toEqual(['MODIFIED ACTIVE', 'MODIFIED DELETING', 'DELETED DELETING']);
  });

  it('stops at an injected failure with ERROR and walks on once the failure is removed', async () => {
    await setUp();
    const controller = startKro();
    await kubectl.create(resources.rgd, webAppRgd());
    await kubectl.create(webAppRef, webApp('broken', { 'portico.dev/simulate-failure': 'deployment' }));
    await eventually(() => stateOf('broken'), (s) => s === 'ERROR', 'the instance to fail');
    expect(condition(await get('broken'), 'Ready')?.message).toContain('deployment');

    await kubectl.patch(webAppRef, 'broken', { metadata: { annotations: { 'portico.dev/simulate-failure': null } } }, { namespace: 'team-a' });
    await eventually(() => stateOf('broken'), (s) => s === 'ACTIVE', 'the retried walk');

    await controller.failResource(webAppRef, 'team-a', 'broken', 'service');
    await eventually(() => stateOf('broken'), (s) => s === 'ERROR', 'failResource to take effect');
  });

  it('no longer walks the instances of an RGD that turned Inactive, but releases them when they are deleted', async () => {
    await setUp();
    startKro();
    await kubectl.create(resources.rgd, webAppRgd());
    await kubectl.create(webAppRef, webApp('orphan'));
    await eventually(() => stateOf('orphan'), (s) => s === 'ACTIVE', 'the instance to be ACTIVE');

    // A dependency cycle: kro stops serving the kind.
    await kubectl.patch(resources.rgd, 'webapp', {
      spec: { resources: [{ id: 'a', template: { x: '${b.status.y}' } }, { id: 'b', template: { y: '${a.status.x}' } }] },
    });
    await eventually(() => kubectl.get(resources.rgd, 'webapp'), (r) => r?.status?.state === 'Inactive', 'the RGD to be Inactive');

    const events = await record(webAppRef);
    await kubectl.delete(webAppRef, 'orphan', 'team-a');
    await eventually(() => get('orphan'), (o) => o === undefined, 'the orphan to be released');
    // Released at once: no DELETING walk for a kind nobody serves.
    expect(events.map((e) => `${e.type} ${e.object.status?.state}`)).toEqual(['MODIFIED ACTIVE', 'DELETED ACTIVE']);
  });

  it('finishes a walk that the API server interrupted, once it can reach it again', async () => {
    await setUp();
    startKro(100);
    await kubectl.create(resources.rgd, webAppRgd());
    await kubectl.create(webAppRef, webApp('interrupted'));
    await eventually(() => stateOf('interrupted'), (s) => s === 'IN_PROGRESS', 'the walk to start');

    api.partition('kro', true); // its next writes fail; nothing about the instance changes meanwhile
    await new Promise((r) => setTimeout(r, 400));
    const during = await get('interrupted');
    expect(during?.status.state).toBe('IN_PROGRESS');
    api.partition('kro', false);
    await eventually(() => stateOf('interrupted'), (s) => s === 'ACTIVE', 'the walk to finish');
    expect(condition(await get('interrupted'), 'ResourcesReady')?.message).toBe('3/3 resources ready');
  });

  it('reports Kubernetes Events for the instance and each resource it creates, and a Warning for a failure', async () => {
    await setUp();
    startKro();
    await kubectl.create(resources.rgd, webAppRgd());
    await eventually(() => kubectl.get(resources.rgd, 'webapp').then((r) => r?.status?.state), (s) => s === 'Active', 'the RGD to be Active');
    await kubectl.create(webAppRef, webApp('evented'));
    await eventually(() => stateOf('evented'), (s) => s === 'ACTIVE', 'the instance to be ACTIVE');
    const eventsOf = async (kind: string, name: string) =>
      (await kubectl.list(resources.event, { namespace: 'team-a', fieldSelector: `involvedObject.kind=${kind},involvedObject.name=${name}` })).items;

    // kro records Events after the status write they describe.
    const ofInstance = await eventually(() => eventsOf('WebApp', 'evented'), (l) => l.some((e) => e.reason === 'Ready'), 'the Ready event');
    expect(ofInstance.map((e) => e.reason).sort()).toEqual(['Ready', 'Reconciling', 'ResourcesReady', 'ResourcesReady', 'ResourcesReady']);
    expect(ofInstance.every((e) => (e.source as { component: string }).component === 'kro' && e.type === 'Normal')).toBe(true);
    // Children have no name template here: kro's objects are named after the instance and the resource id.
    const created = await eventsOf('ConfigMap', 'evented-config');
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ reason: 'ResourceCreated', type: 'Normal', involvedObject: { kind: 'ConfigMap', name: 'evented-config', namespace: 'team-a' } });

    await kubectl.create(webAppRef, webApp('broken', { 'portico.dev/simulate-failure': 'deployment' }));
    await eventually(() => stateOf('broken'), (s) => s === 'ERROR', 'the instance to fail');
    const failed = await eventually(() => eventsOf('WebApp', 'broken'), (l) => l.some((e) => e.reason === 'ReconcileError'), 'the failure event');
    expect(failed.find((e) => e.reason === 'ReconcileError')).toMatchObject({ type: 'Warning', message: expect.stringContaining('"deployment"') });
    expect((await eventsOf('Deployment', 'broken-deployment')).map((e) => `${e.type} ${e.reason}`)).toEqual(['Warning ResourceFailed']);
  });
});
