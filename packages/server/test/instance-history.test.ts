import * as api from '@portico/api';
import { resources } from '@portico/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, createProject, createUser, uniqueName, type ApiAs, type Reply } from './support/api-as.js';
import { clusterModes, startPorticoServer, type PorticoServer } from './support/cluster-modes.js';
import { until } from './support/until.js';

/**
 * Contract §11.2 over HTTP on both cluster adapters and on every instance path family: children grouped by
 * resource id, Events newest first, the timeline, the deployment history and its export — each answer parsed with
 * the contract's schema — recorded once by two replicas, and readable by the same path after the deletion.
 */
describe.each(clusterModes)('instance history (%s cluster)', (mode) => {
  let tp: PorticoServer;
  let admin: ApiAs;
  let project: string;
  let developer: ApiAs & { username: string };
  let outsider: ApiAs;
  let replica: PorticoServer;
  let onReplica: ApiAs;
  let shop: string;
  let tenant: string;
  const ready = (r: Reply<api.InstanceHistory>) => r.status === 200 && r.body.events.some((e) => e.eventType === 'Ready');

  beforeAll(async () => {
    tp = await startPorticoServer({ mode });
    admin = apiAs(tp.url, tp.adminToken);
    project = await createProject(tp, 'hist', ['dev']);
    developer = await createUser(tp, 'dev');
    outsider = await createUser(tp, 'outsider');
    await admin.post(`/api/v1/projects/${project}/roles/developer/users/${developer.username}`);
    replica = await startPorticoServer({ mode, join: tp, adminPassword: tp.adminPassword });
    onReplica = apiAs(replica.url, replica.adminToken);
    shop = uniqueName('hist');
    tenant = uniqueName('tenant');
    expect((await developer.post('/api/v1/namespaces/dev/instances/WebApp', { name: shop, project, values: { image: 'nginx' } })).status).toBe(201);
    expect((await developer.post('/api/v1/instances/TenantNamespace', { name: tenant, project, values: { team: 'shop', adminGroup: 'shop-admins' } })).status).toBe(201);
  });
  afterAll(async () => {
    await replica?.close();
    await tp?.close();
  });

  const families = () => [
    { label: 'namespaced', base: `/api/v1/namespaces/dev/instances/WebApp/${shop}`, bad: `/api/v1/namespaces/Dev_Bad/instances/WebApp/${shop}` },
    { label: 'cluster-scoped `_`', base: `/api/v1/instances/_/TenantNamespace/${tenant}`, bad: `/api/v1/instances/_/tenantNamespace/${tenant}` },
    { label: 'cluster-scoped alias', base: `/api/v1/instances/TenantNamespace/${tenant}`, bad: `/api/v1/instances/tenantNamespace/${tenant}` },
  ];
  const shapes = { events: api.InstanceEventList, timeline: api.InstanceTimeline, children: api.InstanceChildren, history: api.InstanceHistory };

  for (const view of ['events', 'timeline', 'children', 'history'] as const) {
    it(`…/${view}: the contract's shape on every path family, 404 for an outsider and an unknown instance, 400 for a bad path`, async () => {
      for (const family of families()) {
        await until(developer, `${family.base}/history`, ready, `${family.label} Ready`);
        const ok = await developer.get(`${family.base}/${view}`);
        expect(ok.status, `${family.label} ${view}`).toBe(200);
        shapes[view].parse(ok.body);
        expect((await outsider.get(`${family.base}/${view}`)).body).toMatchObject({ code: 'NOT_FOUND' });
        expect((await developer.get(`${family.base}-gone/${view}`)).status).toBe(404);
        expect((await developer.get(`${family.bad}/${view}`)).status, `${family.label} ${view}`).toBe(400);
      }
    });
  }

  it('children: one group per spec.resources id in the RGD\'s order, health from the walk, kinds without health None', async () => {
    const base = `/api/v1/namespaces/dev/instances/WebApp/${shop}`;
    await until(developer, `${base}/history`, ready, 'Ready');
    const children = api.InstanceChildren.parse((await developer.get(`${base}/children`)).body);
    const graph = api.RgdGraph.parse((await developer.get('/api/v1/rgds/web-app/graph')).body);
    expect(children).toMatchObject({ instanceName: shop, instanceNamespace: 'dev', instanceKind: 'WebApp', clusterUnreachable: false, unreachableClusters: [] });
    expect(children.groups.map((g) => g.nodeId)).toEqual(graph.resources.map((r) => r.id));
    const byId = Object.fromEntries(children.groups.map((g) => [g.nodeId, g]));
    expect(byId.deployment).toMatchObject({ kind: 'Deployment', count: 1, readyCount: 1, health: 'Healthy', resources: [{ name: shop, namespace: 'dev', nodeId: 'deployment', health: 'Healthy' }] });
    expect(byId.config).toMatchObject({ kind: 'ConfigMap', readyCount: 0, health: 'None' });
    expect(children.totalCount).toBe(children.groups.reduce((n, g) => n + g.count, 0));
  });

  it('events newest first as "<Kind>/<name>"; the timeline oldest first with isCurrent on the last, source picks the Events; another source is 400', async () => {
    const base = `/api/v1/namespaces/dev/instances/WebApp/${shop}`;
    const events = api.InstanceEventList.parse((await until(developer, `${base}/events`, (r) => r.body.events?.some((e: api.InstanceEvent) => e.reason === 'Ready'), 'the Ready event')).body).events;
    expect(events[0]).toMatchObject({ reason: 'Ready', object: `WebApp/${shop}`, type: 'Normal', source: 'kro' });
    for (let i = 1; i < events.length; i++) expect(Date.parse(events[i - 1].lastSeen)).toBeGreaterThanOrEqual(Date.parse(events[i].lastSeen));
    const timeline = api.InstanceTimeline.parse((await developer.get(`${base}/timeline`)).body);
    expect([timeline.namespace, timeline.kind, timeline.name]).toEqual(['dev', 'WebApp', shop]);
    expect(timeline.timeline[0]).toMatchObject({ eventType: 'Created', status: 'Pending', user: developer.username, isCompleted: true });
    expect(timeline.timeline.filter((e) => e.isCurrent)).toEqual([timeline.timeline.at(-1)]);
    const kube = api.InstanceTimeline.parse((await developer.get(`${base}/timeline?source=kubernetes`)).body);
    expect(kube.timeline.length).toBe(events.length);
    expect(kube.timeline.every((e) => e.eventType === 'KubernetesEvent')).toBe(true);
    expect(api.InstanceTimeline.parse((await developer.get(`${base}/timeline?source=deployment`)).body)).toEqual(timeline);
    const bad = await developer.get(`${base}/timeline?source=git`);
    expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it('history and its export: JSON and CSV downloads named after the instance, another format 400', async () => {
    for (const family of families()) {
      const history = api.InstanceHistory.parse((await until(developer, `${family.base}/history`, ready, 'Ready')).body);
      const name = family.base.split('/').at(-1)!;
      const json = await fetch(`${tp.url}${family.base}/history/export?format=json`, { headers: { authorization: `Bearer ${developer.token}` } });
      expect(json.status).toBe(200);
      expect(json.headers.get('content-disposition')).toBe(`attachment; filename="${name}-deployment-history.json"`);
      expect(api.InstanceHistory.parse(await json.json()).events.map((e) => e.id)).toEqual(expect.arrayContaining(history.events.map((e) => e.id)));
      const csv = await fetch(`${tp.url}${family.base}/history/export?format=csv`, { headers: { authorization: `Bearer ${developer.token}` } });
      expect(csv.headers.get('content-type')).toContain('text/csv');
      expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="${name}-deployment-history.csv"`);
      const lines = (await csv.text()).trimEnd().split('\r\n');
      expect(lines[0]).toBe(api.historyCsvColumns.join(','));
      expect(lines[1]).toContain(`,Created,Pending,${developer.username},direct,`);
      const bad = await developer.get(`${family.base}/history/export?format=xml`);
      expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_FAILED']);
      expect((await outsider.get(`${family.base}/history/export?format=csv`)).status).toBe(404);
    }
  });

  it('two replicas record each event once and answer the same history; a PATCH is Updated by its user', async () => {
    const base = `/api/v1/namespaces/dev/instances/WebApp/${shop}`;
    expect((await developer.call('PATCH', base, { spec: { replicas: 3 } })).status).toBe(200);
    const updated = await until<api.InstanceHistory>(onReplica, `${base}/history`, (r) => r.body.events?.some((e) => e.eventType === 'Updated') && r.body.events.at(-1)?.eventType === 'Ready', 'Updated, then Ready again');
    const history = api.InstanceHistory.parse(updated.body);
    expect(history.events.find((e) => e.eventType === 'Updated')).toMatchObject({ user: developer.username });
    expect(new Set(history.events.map((e) => e.id)).size).toBe(history.events.length);
    expect(history.events.filter((e) => e.eventType === 'Created')).toHaveLength(1);
    await until(developer, `${base}/history`, (r) => JSON.stringify(r.body) === JSON.stringify(updated.body), 'the same history on both replicas');
    const stored = await tp.kubectl.list(resources.configMap, { namespace: 'portico', labelSelector: 'portico.dev/record=instance-history' });
    expect(stored.items.filter((o) => o.metadata.annotations?.['portico.dev/instance'] === `dev/WebApp/${shop}`)).toHaveLength(1);
  });

  it('a deleted instance\'s history stays readable by the same path on every replica, with who deleted it', async () => {
    const name = uniqueName('gone');
    const base = `/api/v1/namespaces/dev/instances/WebApp/${name}`;
    expect((await developer.post('/api/v1/namespaces/dev/instances/WebApp', { name, project, values: { image: 'nginx' } })).status).toBe(201);
    await until(developer, `${base}/history`, ready, 'Ready');
    expect((await developer.del(base)).status).toBe(200);
    await until(developer, base, (r) => r.status === 404, 'the instance to be gone');
    for (const who of [developer, onReplica]) {
      const history = api.InstanceHistory.parse((await until<api.InstanceHistory>(who, `${base}/history`, (r) => r.body.currentStatus === 'Deleted', 'the deleted history')).body);
      expect(history.events.filter((e) => e.eventType === 'Deleted')).toEqual([expect.objectContaining({ user: developer.username })]);
      expect(api.InstanceTimeline.parse((await who.get(`${base}/timeline`)).body).timeline.at(-1)).toMatchObject({ eventType: 'Deleted', isCurrent: true });
      expect((await who.get(`${base}/history/export?format=json`)).body).toMatchObject({ currentStatus: 'Deleted' });
    }
    expect((await outsider.get(`${base}/history`)).status).toBe(404);
    expect((await developer.get(`${base}/children`)).status).toBe(404);
  });
});
