import * as api from '@portico/api';
import { isPorticoError } from '@portico/core';
import { describe, expect, it } from 'vitest';
import { contentHash, createCatalog, createMemoryRevisionStore, maxRevisionsPerRgd } from '../../src/catalog/index.js';
import { actor, fakeAuthz, fakeInformer, rgd } from './helpers.js';

/** The deploy form, resource graph and revision views of a catalog RGD, as a client in the field reads them. */

const webApp = () =>
  rgd('web-app', {
    kind: 'WebApp',
    annotations: { 'portico.dev/description': 'A web application' },
    // Declared out of alphabetical order on purpose: a form shows fields in the order the RGD author wrote them.
    spec: {
      name: 'string | required=true description="Application name" pattern="^[a-z]+$"',
      replicas: 'integer | default=2 minimum=1 maximum=10',
      tier: 'string | enum=frontend,backend default=frontend',
      ingress: { host: 'string | required=true', tls: 'boolean | default=true' },
      ports: '[]integer',
      env: 'map[string]string',
      extra: 'object',
    },
    resources: [
      { id: 'config', template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '${schema.spec.name}-config' } } },
      {
        id: 'deployment',
        template: { apiVersion: 'apps/v1', kind: 'Deployment', spec: { env: '${config.data.url}', labels: '${{"app": config.metadata.name}}' } },
        readyWhen: ['${deployment.status.availableReplicas == deployment.spec.replicas}'],
      },
      { id: 'ingress', template: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', spec: { backend: '${deployment.metadata.name}' } }, includeWhen: ['${schema.spec.ingress.host != ""}'] },
      { id: 'workers', forEach: [{ port: '${schema.spec.ports}' }], template: { apiVersion: 'v1', kind: 'Service' } },
      { id: 'cluster', externalRef: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shared' } } },
    ],
  });

const setup = (objects = [webApp()]) => {
  const informer = fakeInformer(objects);
  let clock = Date.parse('2026-03-01T10:00:00Z');
  const catalog = createCatalog({ rgds: informer, authz: fakeAuthz({ members: { dev: ['shop'] }, grants: { dev: ['rgds/shop/*'] } }), now: () => new Date((clock += 1000)) });
  return { informer, catalog };
};

describe('RGD form schema', () => {
  it('lists fields in the order the simple schema declares them, nested objects and arrays included, with markers', () => {
    const { catalog } = setup();
    const answer = api.RgdSchemaResponse.parse(catalog.formSchema(actor('dev'), 'web-app'));
    const { schema } = answer;
    expect(answer.crdFound).toBe(true);
    expect(answer.rgd).toMatchObject({ name: 'web-app', kind: 'WebApp' });
    expect(schema).toMatchObject({ name: 'web-app', namespace: '', group: 'kro.run', version: 'v1alpha1', kind: 'WebApp', isClusterScoped: false, description: 'A web application' });
    expect(schema.propertyOrder).toEqual(['name', 'replicas', 'tier', 'ingress', 'ports', 'env', 'extra']);
    expect(schema.required).toEqual(['name']);
    expect(schema.properties.name).toEqual({ type: 'string', description: 'Application name', pattern: '^[a-z]+$' });
    expect(schema.properties.replicas).toEqual({ type: 'integer', default: 2, minimum: 1, maximum: 10 });
    expect(schema.properties.tier).toEqual({ type: 'string', enum: ['frontend', 'backend'], default: 'frontend' });
    expect(schema.properties.ingress).toMatchObject({
      type: 'object',
      propertyOrder: ['host', 'tls'],
      required: ['host'],
      properties: { host: { type: 'string' }, tls: { type: 'boolean', default: true } },
      additionalProperties: false,
    });
    expect(schema.properties.ports).toEqual({ type: 'array', items: { type: 'integer' } });
    expect(schema.properties.env).toEqual({ type: 'object', additionalProperties: { type: 'string' } });
    expect(schema.properties.extra).toEqual({ type: 'object', additionalProperties: true });
  });

  it('is built once per revision: the same answer object parts until the RGD changes', () => {
    const { informer, catalog } = setup();
    const first = catalog.formSchema(actor('dev'), 'web-app').schema;
    expect(catalog.formSchema(actor('dev'), 'web-app').schema.properties).toBe(first.properties);
    informer.emit('MODIFIED', rgd('web-app', { kind: 'WebApp', resourceVersion: '2', spec: { size: 'integer | default=1' } }));
    const changed = catalog.formSchema(actor('dev'), 'web-app').schema;
    expect(changed.properties).not.toBe(first.properties);
    expect(changed.propertyOrder).toEqual(['size']);
  });

  it('is NOT_FOUND for an RGD the caller may not see, and UNPROCESSABLE for a broken schema', () => {
    const { catalog } = setup([webApp(), rgd('secret-db', { labels: { 'portico.dev/project': 'payments' } }), rgd('broken', { spec: { n: 'strin' } })]);
    for (const name of ['secret-db', 'nope']) {
      const err = (() => {
        try {
          catalog.formSchema(actor('dev'), name);
        } catch (e) {
          return e;
        }
      })();
      expect(isPorticoError(err) && err.code).toBe('NOT_FOUND');
    }
    expect(() => catalog.formSchema(actor('dev'), 'broken')).toThrow(/invalid schema/);
  });
});

describe('RGD resource graph', () => {
  it('describes each resource and draws an edge for every ${…} reference, nested braces included', () => {
    const { catalog } = setup();
    const graph = api.RgdGraph.parse(catalog.graph(actor('dev'), 'web-app'));
    expect(graph.rgdName).toBe('web-app');
    expect(graph.rgdNamespace).toBe('');
    const byId = Object.fromEntries(graph.resources.map((r) => [r.id, r]));
    expect(graph.resources.map((r) => r.id)).toEqual(['config', 'deployment', 'ingress', 'workers', 'cluster']);
    expect(byId.config).toEqual({ id: 'config', apiVersion: 'v1', kind: 'ConfigMap', isTemplate: true, isConditional: false, isCollection: false, dependsOn: [], readyWhen: [], includeWhen: [] });
    expect(byId.deployment).toMatchObject({ kind: 'Deployment', dependsOn: ['config'], readyWhen: ['${deployment.status.availableReplicas == deployment.spec.replicas}'] });
    expect(byId.ingress).toMatchObject({ isConditional: true, dependsOn: ['deployment'], includeWhen: ['${schema.spec.ingress.host != ""}'] });
    expect(byId.workers).toMatchObject({ isCollection: true, dependsOn: [] });
    expect(byId.cluster).toMatchObject({ isTemplate: false, kind: 'Namespace' });
    expect(graph.edges).toEqual([
      { from: 'config', to: 'deployment', type: 'reference' },
      { from: 'deployment', to: 'ingress', type: 'reference' },
    ]);
  });
});

describe('RGD revisions', () => {
  /** The RGD at a later generation: what the API server stores after `kubectl apply` changed its spec. */
  const version = (generation: number, change: (o: ReturnType<typeof webApp>) => void) => {
    const o = webApp();
    o.metadata.resourceVersion = String(10 + generation);
    o.metadata.generation = generation;
    change(o);
    return o;
  };
  const revisionsOf = async (catalog: ReturnType<typeof setup>['catalog']) => {
    await catalog.revisionsIdle();
    return api.GraphRevisionList.parse(catalog.revisions(actor('dev'), 'web-app'));
  };
  const failure = async (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => (isPorticoError(e) ? e.code : e));

  it('numbers a revision per change of the spec, newest first, and none for labels, annotations or status', async () => {
    const { informer, catalog } = setup();
    await catalog.revisionsIdle();
    informer.emit('MODIFIED', version(1, (o) => {
      o.metadata.labels = { team: 'web' };
      o.metadata.annotations = { ...o.metadata.annotations, 'portico.dev/title': 'Web' };
      o.status = { state: 'Inactive', conditions: [] };
    }));
    expect((await revisionsOf(catalog)).items.map((r) => r.revisionNumber)).toEqual([1]);
    informer.emit('MODIFIED', version(2, (o) => {
      o.spec.schema.spec = { name: 'string' };
      o.metadata.annotations = { ...o.metadata.annotations, 'portico.dev/updated-by': 'alice' };
      o.status = { state: 'Active', conditions: [{ type: 'Ready', status: 'True', reason: 'Compiled' }, { type: 'Odd', status: 'maybe' }] };
    }));
    const list = await revisionsOf(catalog);
    expect(list.totalCount).toBe(2);
    expect(list.items.map((r) => r.revisionNumber)).toEqual([2, 1]);
    expect(list.items[0]).toMatchObject({ rgdName: 'web-app', namespace: '', createdBy: 'alice', conditions: [{ type: 'Ready', status: 'True', reason: 'Compiled' }] });
    expect(list.items[1].conditions).toEqual([]);
    expect(list.items[0].contentHash).not.toBe(list.items[1].contentHash);
    expect(catalog.get(actor('dev'), 'web-app').lastIssuedRevision).toBe(2);
    expect(catalog.list(actor('dev'), {}).items[0].lastIssuedRevision).toBe(2);
    expect(catalog.formSchema(actor('dev'), 'web-app').rgd.lastIssuedRevision).toBe(2);
  });

  it('hashes the canonical spec: the same spec written in another key order is no new revision', async () => {
    const { informer, catalog } = setup();
    informer.emit('MODIFIED', version(2, (o) => {
      o.spec = Object.fromEntries(Object.entries(o.spec as Record<string, unknown>).reverse());
    }));
    const list = await revisionsOf(catalog);
    expect(list.items.map((r) => r.revisionNumber)).toEqual([1]);
    expect(list.items[0].contentHash).toBe(contentHash(webApp().spec));
  });

  it('keeps the spec as it was, and diffs two revisions key by key with lists as whole values', async () => {
    const { informer, catalog } = setup();
    await catalog.revisionsIdle();
    informer.emit('MODIFIED', version(2, (o) => {
      o.spec.schema.spec = { ...o.spec.schema.spec, replicas: 'integer | default=3', region: 'string' };
      delete o.spec.schema.spec.extra;
      o.spec.resources = o.spec.resources.slice(0, 2);
    }));
    await catalog.revisionsIdle();
    const first = api.GraphRevisionDetail.parse(await catalog.revision(actor('dev'), 'web-app', 1));
    expect(first.snapshot).toEqual(webApp().spec);
    const diff = api.RevisionDiff.parse(await catalog.revisionDiff(actor('dev'), 'web-app', 2, 1));
    expect([diff.rev1, diff.rev2, diff.identical]).toEqual([1, 2, false]);
    expect(diff.added).toEqual([{ path: 'schema.spec.region', newValue: 'string' }]);
    expect(diff.removed).toEqual([{ path: 'schema.spec.extra', oldValue: 'object' }]);
    expect(diff.modified.map((f) => f.path)).toEqual(['resources', 'schema.spec.replicas']);
    expect(diff.modified[1]).toEqual({ path: 'schema.spec.replicas', oldValue: 'integer | default=2 minimum=1 maximum=10', newValue: 'integer | default=3' });
    expect(await catalog.revisionDiff(actor('dev'), 'web-app', 2, 2)).toMatchObject({ identical: true, added: [], removed: [], modified: [] });
    expect(await failure(catalog.revisionDiff(actor('dev'), 'web-app', 1, 9))).toBe('NOT_FOUND');
    expect(await failure(catalog.revision(actor('dev'), 'web-app', 0))).toBe('NOT_FOUND');
    expect(await failure(catalog.revision(actor('outsider'), 'web-app', 1))).toBe('NOT_FOUND');
  });

  it('keeps the newest 50 per RGD, in the store too', async () => {
    const store = createMemoryRevisionStore();
    const catalog = createCatalog({ rgds: fakeInformer([webApp()]), authz: fakeAuthz({ members: { dev: ['shop'] }, grants: { dev: ['rgds/shop/*'] } }), revisionStore: store });
    const informer = fakeInformer([webApp()]);
    const following = createCatalog({ rgds: informer, authz: fakeAuthz({ members: { dev: ['shop'] }, grants: { dev: ['rgds/shop/*'] } }), revisionStore: store });
    await catalog.revisionsIdle();
    for (let g = 2; g <= maxRevisionsPerRgd + 10; g++) {
      informer.emit('MODIFIED', version(g, (o) => (o.spec.schema.spec = { [`field${g}`]: 'string' })));
      await following.revisionsIdle();
    }
    const list = following.revisions(actor('dev'), 'web-app');
    expect(list.totalCount).toBe(maxRevisionsPerRgd);
    expect(list.items[0].revisionNumber).toBe(maxRevisionsPerRgd + 10);
    expect((await store.loadAll()).map((r) => r.revisionNumber).sort((a, b) => a - b)).toEqual(list.items.map((r) => r.revisionNumber).reverse());
  });

  it('two replicas on one store record each revision once, with the same numbers; a restart goes on from there', async () => {
    const store = createMemoryRevisionStore();
    let creates = 0;
    const counted = { ...store, create: async (r: Parameters<typeof store.create>[0]) => ((await store.create(r)) ? (creates++, true) : false) };
    const authz = fakeAuthz({ members: { dev: ['shop'] }, grants: { dev: ['rgds/shop/*'] } });
    const a = fakeInformer([webApp()]);
    const b = fakeInformer([webApp()]);
    const replicaA = createCatalog({ rgds: a, authz, revisionStore: counted });
    const replicaB = createCatalog({ rgds: b, authz, revisionStore: counted });
    await Promise.all([replicaA.revisionsIdle(), replicaB.revisionsIdle()]);
    const changed = version(2, (o) => (o.spec.schema.spec = { name: 'string' }));
    a.emit('MODIFIED', changed);
    b.emit('MODIFIED', changed);
    await Promise.all([replicaA.revisionsIdle(), replicaB.revisionsIdle()]);
    // A replica that is behind sees generation 1 again after revision 2 was recorded: nothing new.
    b.emit('MODIFIED', webApp());
    await replicaB.revisionsIdle();
    expect(creates).toBe(2);
    for (const replica of [replicaA, replicaB]) {
      expect(replica.revisions(actor('dev'), 'web-app').items.map((r) => [r.revisionNumber, r.contentHash])).toEqual([[2, contentHash(changed.spec)], [1, contentHash(webApp().spec)]]);
    }
    const restarted = createCatalog({ rgds: fakeInformer([changed]), authz, revisionStore: counted });
    await restarted.revisionsIdle();
    expect(restarted.get(actor('dev'), 'web-app').lastIssuedRevision).toBe(2);
    expect(creates).toBe(2);
  });

  it('tells of each revision once it is recorded, and of their removal with the RGD', async () => {
    const store = createMemoryRevisionStore();
    const { informer } = { informer: fakeInformer([webApp()]) };
    const catalog = createCatalog({ rgds: informer, authz: fakeAuthz({ members: { dev: ['shop'] }, grants: { dev: ['rgds/shop/*'] } }), revisionStore: store });
    const notices: string[] = [];
    catalog.onRevision((n) => notices.push(`${n.action} ${n.rgdName} ${n.revision}`));
    await catalog.revisionsIdle();
    informer.emit('MODIFIED', version(2, (o) => (o.spec.schema.spec = { name: 'string' })));
    await catalog.revisionsIdle();
    informer.emit('DELETED', webApp());
    await catalog.revisionsIdle();
    expect(notices).toEqual(['add web-app 1', 'add web-app 2', 'delete web-app 2']);
    expect(await store.loadAll()).toEqual([]);
  });

  it('reads catalog metadata under knodex.io/ too, portico.dev/ winning, and leads the form with property-order', () => {
    const aliased = rgd('aliased', {
      kind: 'Aliased',
      annotations: {
        'knodex.io/title': 'From knodex',
        'knodex.io/category': 'databases',
        'portico.dev/category': 'web',
        'knodex.io/property-order': 'zone, name',
      },
      spec: { name: 'string', size: 'integer', zone: 'string' },
    });
    aliased.metadata.annotations = { ...aliased.metadata.annotations, 'portico.dev/catalog': 'false', 'knodex.io/catalog': 'true' };
    delete aliased.metadata.annotations['portico.dev/catalog'];
    aliased.metadata.labels = { 'knodex.io/project': 'shop' };
    const { catalog } = setup([aliased]);
    expect(catalog.get(actor('dev'), 'aliased')).toMatchObject({ title: 'From knodex', category: 'web', labels: { 'knodex.io/project': 'shop' } });
    expect(catalog.formSchema(actor('dev'), 'aliased').schema.propertyOrder).toEqual(['zone', 'name', 'size']);
  });
});
