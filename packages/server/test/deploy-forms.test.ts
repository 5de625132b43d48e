import * as api from '@portico/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser, uniqueName, type ApiAs, type Reply } from './support/api-as.js';
import { clusterModes, useServer } from './support/cluster-modes.js';
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

  async function until<T = any>(who: ApiAs, path: string, ok: (r: Reply<T>) => boolean, what: string, timeoutMs = 15_000): Promise<Reply<T>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const reply = await who.get<T>(path);
      if (ok(reply)) return reply;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${reply.status} ${JSON.stringify(reply.body)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

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
      const timeline = await until<api.InstanceTimeline>(developer, `${path}/timeline`, (r) => r.body.items?.some((e) => e.toState === 'ACTIVE'), 'the Ready entry');
      const items = api.InstanceTimeline.parse(timeline.body).items;
      expect(items[0]).toMatchObject({ type: 'created', actor: developer.username });
      const changes = items.filter((e) => e.type === 'status');
      expect(changes.length).toBeGreaterThanOrEqual(1);
      expect(changes.at(-1)).toMatchObject({ toState: 'ACTIVE', message: expect.stringMatching(/^Ready/) });

      const graph = api.RgdGraph.parse((await developer.get('/api/v1/rgds/web-app/graph')).body);
      const children = api.InstanceChildren.parse((await developer.get(`${path}/children`)).body);
      expect(children.items.map((c) => c.id).sort()).toEqual(graph.resources.map((r) => r.id).sort());
      expect(children.items.every((c) => c.ready && c.status === 'Ready' && c.namespace === 'dev')).toBe(true);
      expect(children.items.find((c) => c.id === 'deployment')).toMatchObject({ kind: 'Deployment', name });

      const events = await until<api.InstanceEventList>(developer, `${path}/events`, (r) => r.body.items?.some((e) => e.reason === 'Ready'), 'the Ready event');
      const list = api.InstanceEventList.parse(events.body).items;
      expect(list.every((e) => e.source === 'kro')).toBe(true);
      const createdChildren = list.filter((e) => e.reason === 'ResourceCreated').map((e) => `${e.involvedObject.kind}/${e.involvedObject.name}`);
      expect(createdChildren.sort()).toEqual(children.items.map((c) => `${c.kind}/${c.name}`).sort());
      expect(list.find((e) => e.reason === 'Ready')).toMatchObject({ type: 'Normal', involvedObject: { kind: 'WebApp', name, namespace: 'dev' } });
    } finally {
      socket.socket.close();
    }
  });

  describe('RGD views', () => {
    for (const view of ['schema', 'graph', 'revisions'] as const) {
      const shape = { schema: api.RgdSchemaResponse, graph: api.RgdGraph, revisions: api.RgdRevisionList }[view];
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

    it('revisions start with the catalog entry as Portico first saw it', async () => {
      const { body } = await developer.get('/api/v1/rgds/web-app/revisions');
      expect(body.totalCount).toBe(body.items.length);
      expect(body.items.at(-1)).toMatchObject({ revision: 1, summary: 'first seen in the catalog' });
    });
  });

  describe('instance history routes on every path family', () => {
    let shop: string;
    let tenant: string;
    beforeAll(async () => {
      shop = uniqueName('hist');
      tenant = uniqueName('tenant');
      expect((await developer.post('/api/v1/namespaces/dev/instances/WebApp', { name: shop, project, values: { image: 'nginx' } })).status).toBe(201);
      const alias = await developer.post('/api/v1/instances/TenantNamespace', { name: tenant, project, values: { team: 'shop', adminGroup: 'shop-admins' } });
      expect(alias.status).toBe(201);
      expect(alias.body).toMatchObject({ name: tenant, namespace: '', isClusterScoped: true });
    });

    const families = () => [
      { label: 'namespaced', base: `/api/v1/namespaces/dev/instances/WebApp/${shop}`, bad: `/api/v1/namespaces/Dev_Bad/instances/WebApp/${shop}` },
      { label: 'cluster-scoped `_`', base: `/api/v1/instances/_/TenantNamespace/${tenant}`, bad: `/api/v1/instances/_/tenantNamespace/${tenant}` },
    ];
    const shapes = { events: api.InstanceEventList, timeline: api.InstanceTimeline, children: api.InstanceChildren };

    for (const view of ['events', 'timeline', 'children'] as const) {
      it(`…/${view}: 200 with the contract's shape, 404 for an outsider and an unknown instance, 400 for a bad path`, async () => {
        for (const family of families()) {
          const ok = await until(developer, `${family.base}/${view}`, (r) => r.status === 200 && r.body.items.length > 0, `${family.label} ${view}`);
          shapes[view].parse(ok.body);
          expect((await outsider.get(`${family.base}/${view}`)).body).toMatchObject({ code: 'NOT_FOUND' });
          expect((await developer.get(`${family.base}-gone/${view}`)).status).toBe(404);
          const bad = await developer.get(`${family.bad}/${view}`);
          expect(bad.status, `${family.label} ${view}`).toBe(400);
        }
      });
    }

    it('the `_`-less aliases read, patch and delete the cluster-scoped instance; /instances/count stays the count', async () => {
      const path = `/api/v1/instances/TenantNamespace/${tenant}`;
      expect((await developer.get(path)).body).toMatchObject({ name: tenant, kind: 'TenantNamespace' });
      expect((await outsider.get(path)).status).toBe(404);
      expect((await developer.get('/api/v1/instances/tenantNamespace/x')).status).toBe(400);
      const patched = await developer.call('PATCH', path, { spec: { environment: 'staging' } });
      expect(patched.status).toBe(200);
      expect(patched.body.spec).toMatchObject({ environment: 'staging' });
      const timeline = await developer.get(`/api/v1/instances/_/TenantNamespace/${tenant}/timeline`);
      expect(timeline.body.items.find((e: api.TimelineEntry) => e.type === 'updated')).toMatchObject({ actor: developer.username });
      expect((await developer.get('/api/v1/instances/count')).body).toEqual({ count: expect.any(Number) });
      const notAKind = await fetch(`${tp.url}/api/v1/instances/count`, { method: 'POST', headers: { authorization: `Bearer ${developer.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'x', project, values: {} }) });
      expect([notAKind.status, notAKind.headers.get('allow'), (await notAKind.json()).code]).toEqual([405, 'GET', 'METHOD_NOT_ALLOWED']);
      const deleted = await developer.del(path);
      expect(deleted.status).toBe(200);
      await until(developer, path, (r) => r.status === 404, 'the tenant to be gone');
    });
  });
});
