import * as api from '@portico/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPorticoError } from '../../src/errors.js';
import { createHistoryStore, createInstanceHistory, historyObjectName, historyRetentionMs } from '../../src/instances/index.js';
import { createLogger } from '../../src/logger.js';
import { resources } from '../../src/ports/cluster.js';
import type { InstanceKey } from '../../src/types.js';
import { eventually } from '../support/eventually.js';
import { actors, projectNamespace, startWorld, type World } from './world.js';

const codeOf = (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => (isPorticoError(e) ? e.code : String(e)));

/** An instance's history as a client in the field shows it: history, timeline, child resources, Kubernetes Events. */
describe('instance history', () => {
  let world: World;
  let replica: World;
  beforeAll(async () => {
    world = await startWorld();
    replica = await startWorld({ cluster: world.cluster }); // a second Portico on the same cluster records too
  });
  afterAll(async () => {
    await replica?.close();
    await world?.close();
  });

  const create = async (name: string, annotations?: Record<string, string>) => {
    const key: InstanceKey = { namespace: 'dev', kind: 'WebApp', name };
    await world.instances.create(actors.alice, { name, namespace: 'dev', project: 'alpha', kind: 'WebApp', values: { image: 'nginx:1.27' } });
    if (annotations) await world.cluster.patch(world.instances.index.get(key)!.ref, name, { metadata: { annotations } }, { namespace: 'dev' });
    return key;
  };
  const eventTypes = async (w: World, key: InstanceKey) => (await w.instances.history(actors.alice, key)).events.map((e) => e.eventType);

  it('records Created → Creating → Ready once, with the user, although two replicas follow it; a PATCH is Updated by its user', async () => {
    const key = await create('history-shop');
    await eventually(() => eventTypes(world, key), (types) => types.includes('Ready'), 'the Ready event');
    const history = api.InstanceHistory.parse(await replica.instances.history(actors.vic, key));
    expect(history).toMatchObject({ instanceId: 'dev/WebApp/history-shop', instanceName: 'history-shop', namespace: 'dev', rgdName: 'webapp', deploymentMode: 'direct', currentStatus: 'Ready' });
    expect(history.events[0]).toMatchObject({ eventType: 'Created', status: 'Pending', user: 'alice', message: expect.stringContaining('WebApp dev/history-shop') });
    // Creating is there unless kro was done before the recorder looked (changes are taken newest first).
    expect(history.events.map((e) => e.eventType).join(' ')).toMatch(/^Created( Creating)? Ready$/);

    await world.instances.patch(actors.alice, key, { spec: { replicas: 3 } });
    const updated = await eventually(() => replica.instances.history(actors.alice, key), (h) => h.events.some((e) => e.eventType === 'Updated'), 'the Updated event');
    expect(updated.events.find((e) => e.eventType === 'Updated')).toMatchObject({ user: 'alice', status: 'Updated', details: { generation: 2 } });
    // A spec change made around Portico is recorded, on nobody.
    const item = world.instances.index.get(key)!;
    await world.cluster.patch(item.ref, key.name, { spec: { replicas: 4 } }, { namespace: 'dev' });
    const outside = await eventually(() => world.instances.history(actors.alice, key), (h) => h.events.filter((e) => e.eventType === 'Updated').length === 2, 'the second Updated event');
    expect(outside.events.filter((e) => e.eventType === 'Updated')[1]).not.toHaveProperty('user');
  });

  it('the timeline is the history oldest first with isCurrent on the last entry; source=kubernetes is the Events', async () => {
    const key = await create('history-line');
    await eventually(() => eventTypes(world, key), (types) => types.includes('Ready'), 'the Ready event');
    const timeline = api.InstanceTimeline.parse(await world.instances.timeline(actors.vic, key));
    expect([timeline.namespace, timeline.kind, timeline.name]).toEqual(['dev', 'WebApp', 'history-line']);
    expect(timeline.timeline.map((e) => e.eventType)).toEqual((await world.instances.history(actors.vic, key)).events.map((e) => e.eventType));
    expect(timeline.timeline.map((e) => e.isCurrent)).toEqual(timeline.timeline.map((_, i) => i === timeline.timeline.length - 1));
    expect(timeline.timeline.every((e) => e.isCompleted)).toBe(true);
    const kube = api.InstanceTimeline.parse(await world.instances.timeline(actors.vic, key, 'kubernetes'));
    expect(kube.timeline.length).toBeGreaterThan(0);
    expect(kube.timeline.every((e) => e.eventType === 'KubernetesEvent')).toBe(true);
    expect(kube.timeline.at(-1)).toMatchObject({ isCurrent: true, status: 'Normal', message: expect.stringContaining('WebApp/history-line Ready') });
  });

  it('marks the RGD revisions recorded during the instance\'s life as RevisionChanged', async () => {
    const key = await create('history-revised');
    await eventually(() => eventTypes(world, key), (types) => types.includes('Ready'), 'the Ready event');
    const current = (await world.cluster.get(resources.rgd, 'webapp'))!;
    await world.cluster.patch(resources.rgd, 'webapp', { spec: { schema: { spec: { ...current.spec.schema.spec, note: 'string | default=x' } } } });
    await eventually(() => world.catalog.revisionRecords('webapp').length, (n) => n >= 2, 'revision 2');
    const timeline = await world.instances.timeline(actors.alice, key, 'deployment');
    const marker = timeline.timeline.find((e) => e.eventType === 'RevisionChanged');
    expect(marker).toMatchObject({ revisionNumber: 2, previousRevision: 1, status: 'Revision 2' });
  });

  it('keeps a deleted instance\'s history readable by the same path, with who deleted it; a new object there starts afresh', async () => {
    const key = await create('history-gone');
    await eventually(() => eventTypes(world, key), (types) => types.includes('Ready'), 'the Ready event');
    await world.instances.delete(actors.alice, key);
    await eventually(async () => world.instances.index.get(key), (item) => item === undefined, 'the instance to be gone');
    const history = await eventually(() => replica.instances.history(actors.vic, key), (h) => h.currentStatus === 'Deleted', 'the deleted history');
    expect(history.events.filter((e) => e.eventType === 'Deleted')).toEqual([expect.objectContaining({ user: 'alice', status: 'Deleted' })]);
    expect((await world.instances.timeline(actors.vic, key)).timeline.at(-1)).toMatchObject({ eventType: 'Deleted', isCurrent: true });
    expect(await codeOf(world.instances.history(actors.bob, key))).toBe('NOT_FOUND');
    expect(await codeOf(world.instances.events(actors.alice, key))).toBe('NOT_FOUND');

    await create('history-gone');
    const again = await eventually(() => world.instances.history(actors.alice, key), (h) => h.events.some((e) => e.eventType === 'Ready'), 'the new Ready event');
    expect(again.events.map((e) => e.eventType).join(' ')).toMatch(/^Created( Creating)? Ready$/);
  });

  it('a restarted replica reads the same history and adds nothing twice', async () => {
    const key = await create('history-restart');
    await eventually(() => eventTypes(world, key), (types) => types.includes('Ready'), 'the Ready event');
    const before = await world.instances.history(actors.alice, key);
    const restarted = await startWorld({ cluster: world.cluster });
    try {
      expect(await restarted.instances.history(actors.alice, key)).toEqual(before);
    } finally {
      await restarted.close();
    }
  });

  it('forgets a history 90 days after the deletion: 404, and the sweep removes it', async () => {
    const store = createHistoryStore({ cluster: world.cluster, namespace: projectNamespace, logger: createLogger('silent') });
    const key: InstanceKey = { namespace: 'dev', kind: 'WebApp', name: 'history-old' };
    const deletedAt = new Date(Date.now() - historyRetentionMs - 60_000).toISOString();
    const doc = { instanceId: 'dev/WebApp/history-old', uid: 'u-old', instanceName: 'history-old', namespace: 'dev', kind: 'WebApp', project: 'alpha', rgdName: 'webapp', createdAt: deletedAt, deploymentMode: 'direct', generation: 1, health: 'Healthy', observedVersion: '1', events: [] };
    await store.update(key, () => ({ ...doc, deletedAt }));
    expect(await codeOf(world.instances.history(actors.alice, key))).toBe('NOT_FOUND');
    const fresh: InstanceKey = { ...key, name: 'history-recent' };
    await store.update(fresh, () => ({ ...doc, instanceName: 'history-recent', deletedAt: new Date(Date.now() - historyRetentionMs + 60_000).toISOString() }));
    expect(await codeOf(world.instances.history(actors.alice, fresh))).toBe('ok');
    expect(await store.sweep(new Date())).toBeGreaterThanOrEqual(1);
    expect(await world.cluster.get(resources.configMap, historyObjectName(key), projectNamespace)).toBeUndefined();
    expect(await world.cluster.get(resources.configMap, historyObjectName(fresh), projectNamespace)).toBeDefined();
  });

  it('exports the history as JSON or as CSV with the contract\'s columns, a formula defused', async () => {
    const key = await create('history-export');
    await eventually(() => eventTypes(world, key), (types) => types.includes('Ready'), 'the Ready event');
    const json = await world.instances.historyExport(actors.vic, key, 'json');
    expect(json).toMatchObject({ filename: 'history-export-deployment-history.json', contentType: expect.stringContaining('application/json') });
    expect(api.InstanceHistory.parse(JSON.parse(json.text))).toEqual(await world.instances.history(actors.vic, key));
    const csv = await world.instances.historyExport(actors.vic, key, 'csv');
    expect(csv.filename).toBe('history-export-deployment-history.csv');
    const lines = csv.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('Timestamp,Event,Status,User,Deployment Mode,Git Commit,Git Repository,Git Branch,Message,Details');
    expect(lines).toHaveLength((await world.instances.history(actors.vic, key)).events.length + 1);
    expect(lines[1]).toMatch(/^[^,]+,Created,Pending,alice,direct,,,,Created WebApp dev\/history-export from rgd webapp,"\{""rgdName"":""webapp"",""namespace"":""dev""\}"$/);
  });

  it('lists the child resources grouped by spec.resources id in the RGD\'s order; ConfigMaps have no health', async () => {
    const key = await create('history-kids');
    await eventually(() => world.instances.get(actors.alice, key).health, (h) => h === 'Healthy', 'Healthy');
    const children = api.InstanceChildren.parse(await world.instances.children(actors.vic, key));
    expect(children).toMatchObject({ instanceName: 'history-kids', instanceNamespace: 'dev', instanceKind: 'WebApp', totalCount: 3, clusterUnreachable: false, unreachableClusters: [] });
    expect(children.groups.map((g) => [g.nodeId, g.kind, g.count, g.readyCount, g.health])).toEqual([
      ['deployment', 'ConfigMap', 1, 0, 'None'],
      ['service', 'ConfigMap', 1, 0, 'None'],
      ['ingress', 'ConfigMap', 1, 0, 'None'],
    ]);
    expect(children.groups.map((g) => [g.resources[0].name, g.resources[0].namespace, g.resources[0].status])).toEqual([
      ['history-kids', 'dev', 'Ready'],
      ['history-kids-service', 'dev', 'Ready'],
      ['history-kids-ingress', 'dev', 'Ready'],
    ]);
  });

  it('shows where a walk failed, and answers the Events of the instance and its children newest first', async () => {
    const key = await create('history-fail', { 'portico.dev/simulate-failure': 'service' });
    await eventually(() => world.instances.get(actors.alice, key).status.state, (s) => s === 'ERROR', 'ERROR');
    const children = await world.instances.children(actors.alice, key);
    expect(children.groups.map((g) => `${g.nodeId}:${g.resources[0].status}`)).toEqual(['deployment:Ready', 'service:Failed', 'ingress:Pending']);
    const events = await eventually(() => world.instances.events(actors.alice, key), (l) => l.events.some((e) => e.reason === 'ReconcileError'), 'the failure');
    api.InstanceEventList.parse(events);
    expect(events.events.find((e) => e.reason === 'ReconcileError')).toMatchObject({ type: 'Warning', source: 'kro', object: 'WebApp/history-fail' });
    expect(events.events.find((e) => e.reason === 'ResourceFailed')).toMatchObject({ type: 'Warning', object: 'ConfigMap/history-fail-service' });
    expect(events.events.every((e) => e.object.split('/')[1]!.startsWith('history-fail'))).toBe(true);
    expect(events.events.at(-1)!.reason).toBe('Reconciling');
    for (let i = 1; i < events.events.length; i++) expect(Date.parse(events.events[i - 1].lastSeen)).toBeGreaterThanOrEqual(Date.parse(events.events[i].lastSeen));
    const failed = await eventually(() => world.instances.history(actors.alice, key), (h) => h.events.some((e) => e.eventType === 'Failed'), 'the Failed event');
    expect(failed.currentStatus).toBe('Failed');
  });

  it('hides every view from a caller who may not see the instance (NOT_FOUND, as for the instance itself)', async () => {
    const key = await create('history-private');
    const reads: (() => Promise<unknown>)[] = [
      () => world.instances.timeline(actors.bob, key),
      () => world.instances.children(actors.bob, key),
      () => world.instances.events(actors.bob, key),
      () => world.instances.history(actors.bob, key),
      () => world.instances.historyExport(actors.bob, key, 'csv'),
    ];
    for (const read of reads) {
      expect(await codeOf(Promise.resolve().then(read))).toBe('NOT_FOUND');
    }
  });

  it('answers one Created entry for an instance nothing was recorded for (made around Portico)', async () => {
    const ref = world.instances.index.get({ namespace: 'dev', kind: 'WebApp', name: 'history-shop' })!.ref;
    await world.cluster.create(ref, { apiVersion: 'kro.run/v1alpha1', kind: 'WebApp', metadata: { name: 'history-kubectl', namespace: 'dev' }, spec: { image: 'nginx' } });
    const key: InstanceKey = { namespace: 'dev', kind: 'WebApp', name: 'history-kubectl' };
    await eventually(async () => world.instances.index.get(key), (item) => item !== undefined, 'the instance in the index');
    // Not Portico's (no project label): nothing is recorded for it, and the views answer from the object alone.
    const reader = createInstanceHistory({ cluster: world.cluster, catalog: world.catalog });
    const timeline = await reader.timeline({ key, item: world.instances.index.get(key)! });
    expect(timeline.timeline).toEqual([expect.objectContaining({ eventType: 'Created', status: 'Pending', isCurrent: true })]);
    expect(reader.history({ key, item: world.instances.index.get(key)! })).toMatchObject({ currentStatus: 'Pending', events: [{ eventType: 'Created' }] });
  });

  it('reads a child\'s kind as the cluster serves it now: one that was not served a moment ago is seen on the next read', async () => {
    const key = await create('history-late-kind');
    await eventually(() => world.instances.get(actors.alice, key).health, (h) => h === 'Healthy', 'Healthy');
    // The first resource's object, as kro makes it (this world's kro makes none).
    await world.cluster.create(resources.configMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'history-late-kind', namespace: 'dev' }, data: {} });
    let served = false;
    const cluster = new Proxy(world.cluster, {
      get: (target, prop, receiver) => (prop === 'discover' ? (...args: Parameters<typeof target.discover>) => (served ? target.discover(...args) : Promise.resolve(undefined)) : Reflect.get(target, prop, receiver)),
    });
    const reader = createInstanceHistory({ cluster, catalog: world.catalog });
    const item = world.instances.index.get(key)!;
    const statuses = async () => (await reader.children(item)).groups.map((g) => g.resources[0]!.status);
    expect(await statuses()).toEqual(['Ready', 'Ready', 'Ready']); // from the instance's progress alone
    served = true;
    expect(await statuses()).toEqual(['Exists', 'Ready', 'Ready']); // the object the cluster has, the others from the progress
  });
});
