import * as api from '@portico/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser, uniqueName, type ApiAs } from './support/api-as.js';
import { clusterModes, useServer } from './support/cluster-modes.js';
import { until } from './support/until.js';
import { connect } from './ws/harness.js';

/**
 * Contract §11 over HTTP on both cluster adapters: what a browser client in the field reads to build a deploy
 * form, draw a resource graph and show an instance's history, and the `_`-less cluster-scoped aliases.
 */
describe.each(clusterModes)('deploy forms and instance history (%s cluster)', (mode) => {
  const { tp, admin } = useServer(mode);
  let project: string;
  let developer: ApiAs & { username: string };
  let outsider: ApiAs;

  beforeAll(async () => {
    project = await createProject(tp, 'forms', ['dev']);
    developer = await createUser(tp, 'dev');
    outsider = await createUser(tp, 'outsider');
    await admin.post(`/api/v1/projects/${project}/roles/developer/users/${developer.username}`);
  });

  /** A value a form would offer for a required field without a default. */
  const sample = (p: api.FormProperty): unknown => {
    if (p.enum?.length) return p.enum[0];
    switch (p.type) {
      case 'integer':
      case 'number':
        return p.minimum ?? 1;
      case 'boolean':
        return true;
      case 'array':
        return [];
      case 'object':
        return p.properties ? fill(p.properties, p.propertyOrder ?? [], p.required ?? []) : {};
      default:
        return 'ghcr.io/acme/shop:1.4.2';
    }
  };
  /** What a deploy form submits untouched: defaults, in propertyOrder, and every required field filled. */
  function fill(properties: Record<string, api.FormProperty>, order: string[], required: string[]): Record<string, unknown> {
    const values: Record<string, unknown> = {};
    for (const key of order) {
      const p = properties[key];
      if (p.type === 'object' && p.properties) values[key] = fill(p.properties, p.propertyOrder ?? [], p.required ?? []);
      else if (p.default !== undefined) values[key] = structuredClone(p.default);
      else if (required.includes(key)) values[key] = sample(p);
    }
    return values;
  }

  it('round trip: form from /schema → create → Healthy over the WebSocket → timeline, children and Events', async () => {
    const form = await developer.get('/api/v1/rgds/web-app/schema');
    expect(form.status).toBe(200);
    const { schema, rgd, crdFound } = api.RgdSchemaResponse.parse(form.body);
    expect(crdFound).toBe(true);
    expect(rgd.name).toBe('web-app');
    // The RGD declares image, replicas, port, env, resources, ingress in that order; a form keeps it.
    expect(schema.propertyOrder).toEqual(['image', 'replicas', 'port', 'env', 'resources', 'ingress']);
    expect(schema.properties.ingress.propertyOrder).toEqual(['enabled', 'host', 'path', 'className', 'tlsSecretName']);
    const values = fill(schema.properties, schema.propertyOrder, schema.required);
    expect(Object.keys(values)).toEqual(['image', 'replicas', 'port', 'env', 'resources', 'ingress']);

    const ticket = (await developer.post('/api/v1/ws/ticket')).body.ticket;
    const socket = await connect(`${tp.wsBase}/ws?ticket=${ticket}`);
    try {
      socket.send({ type: 'subscribe', data: { resourceType: 'instances', project } });
      await socket.next((f) => f.type === 'subscribed');
      const name = uniqueName('form');
      const created = await developer.post(`/api/v1/namespaces/dev/instances/${schema.kind}`, { name, project, values });
      expect(created.status).toBe(201);
      expect(created.body.spec).toEqual(values);
      await socket.next((f) => f.type === 'instance_update' && f.data.name === name && f.data.instance.health === 'Healthy', 20_000);

      const path = `/api/v1/namespaces/dev/instances/WebApp/${name}`;
      const timeline = await until<api.InstanceTimeline>(developer, `${path}/timeline`, (r) => r.body.timeline?.some((e) => e.eventType === 'Ready'), 'the Ready entry');
      const entries = api.InstanceTimeline.parse(timeline.body).timeline;
      expect(entries[0]).toMatchObject({ eventType: 'Created', user: developer.username });
      expect(entries.at(-1)).toMatchObject({ eventType: 'Ready', status: 'Ready', isCurrent: true });

      const graph = api.RgdGraph.parse((await developer.get('/api/v1/rgds/web-app/graph')).body);
      const children = api.InstanceChildren.parse((await developer.get(`${path}/children`)).body);
      const resources = children.groups.flatMap((g) => g.resources);
      expect(children.groups.map((g) => g.nodeId)).toEqual(graph.resources.map((r) => r.id));
      expect(resources.every((c) => (c.health === 'Healthy' || c.health === 'None') && c.namespace === 'dev')).toBe(true);
      expect(resources.find((c) => c.nodeId === 'deployment')).toMatchObject({ kind: 'Deployment', name });

      const events = await until<api.InstanceEventList>(developer, `${path}/events`, (r) => r.body.events?.some((e) => e.reason === 'Ready'), 'the Ready event');
      const list = api.InstanceEventList.parse(events.body).events;
      expect(list.every((e) => e.source === 'kro')).toBe(true);
      const createdChildren = list.filter((e) => e.reason === 'ResourceCreated').map((e) => e.object);
      expect(createdChildren.sort()).toEqual(resources.map((c) => `${c.kind}/${c.name}`).sort());
      expect(list.find((e) => e.reason === 'Ready')).toMatchObject({ type: 'Normal', object: `WebApp/${name}` });
    } finally {
      socket.socket.close();
    }
  });

  describe('RGD views', () => {
    for (const view of ['schema', 'graph', 'revisions'] as const) {
      const shape = { schema: api.RgdSchemaResponse, graph: api.RgdGraph, revisions: api.GraphRevisionList }[view];
      it(`/rgds/{name}/${view}: 200 for a member, 404 for an outsider and for an unknown RGD, 400 for a bad name`, async () => {
        const ok = await developer.get(`/api/v1/rgds/web-app/${view}`);
        expect(ok.status).toBe(200);
        shape.parse(ok.body);
        expect((await outsider.get(`/api/v1/rgds/web-app/${view}`)).body).toMatchObject({ code: 'NOT_FOUND' });
        expect((await developer.get(`/api/v1/rgds/no-such-rgd/${view}`)).status).toBe(404);
        const bad = await developer.get(`/api/v1/rgds/${'a'.repeat(254)}/${view}`);
        expect(bad.status).toBe(400);
        expect(bad.body.code).toBe('VALIDATION_FAILED');
      });
    }

    it('revisions start at 1 with the RGD\'s spec as Portico first recorded it', async () => {
      const { body } = await until<api.GraphRevisionList>(developer, '/api/v1/rgds/web-app/revisions', (r) => r.body.totalCount > 0, 'revision 1');
      expect(body.totalCount).toBe(body.items.length);
      expect(body.items.at(-1)).toMatchObject({ revisionNumber: 1, rgdName: 'web-app', namespace: '' });
    });
  });

  describe('the cluster-scoped aliases', () => {
    let tenant: string;
    beforeAll(async () => {
      tenant = uniqueName('tenant');
      const alias = await developer.post('/api/v1/instances/TenantNamespace', { name: tenant, project, values: { team: 'shop', adminGroup: 'shop-admins' } });
      expect(alias.status).toBe(201);
      expect(alias.body).toMatchObject({ name: tenant, namespace: '', isClusterScoped: true });
    });

    it('the `_`-less aliases read, patch and delete the cluster-scoped instance; /instances/count stays the count', async () => {
      const path = `/api/v1/instances/TenantNamespace/${tenant}`;
      expect((await developer.get(path)).body).toMatchObject({ name: tenant, kind: 'TenantNamespace' });
      expect((await outsider.get(path)).status).toBe(404);
      expect((await developer.get('/api/v1/instances/tenantNamespace/x')).status).toBe(400);
      const patched = await developer.call('PATCH', path, { spec: { environment: 'staging' } });
      expect(patched.status).toBe(200);
      expect(patched.body.spec).toMatchObject({ environment: 'staging' });
      const history = await until<api.InstanceHistory>(developer, `/api/v1/instances/_/TenantNamespace/${tenant}/history`, (r) => r.body.events?.some((e) => e.eventType === 'Updated'), 'the Updated event');
      expect(history.body.events.find((e) => e.eventType === 'Updated')).toMatchObject({ user: developer.username });
      expect((await developer.get('/api/v1/instances/count')).body).toEqual({ count: expect.any(Number) });
      const notAKind = await fetch(`${tp.url}/api/v1/instances/count`, { method: 'POST', headers: { authorization: `Bearer ${developer.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'x', project, values: {} }) });
      expect([notAKind.status, notAKind.headers.get('allow'), (await notAKind.json()).code]).toEqual([405, 'GET', 'METHOD_NOT_ALLOWED']);
      const deleted = await developer.del(path);
      expect(deleted.status).toBe(200);
      await until(developer, path, (r) => r.status === 404, 'the tenant to be gone');
    });
  });
});
