import * as api from '@portico/api';
import { isPorticoError } from '@portico/core';
import { describe, expect, it } from 'vitest';
import { createCatalog, maxRevisionsPerRgd } from '../../src/catalog/index.js';
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
  it('records the changes seen since start, newest first, with who changed it when the RGD says', () => {
    const { informer, catalog } = setup();
    informer.emit('MODIFIED', { ...webApp(), metadata: { ...webApp().metadata, resourceVersion: '2' } }); // nothing a reader sees
    const retitled = webApp();
    retitled.metadata.resourceVersion = '3';
    retitled.metadata.annotations = { ...retitled.metadata.annotations, 'portico.dev/title': 'Web', 'portico.dev/updated-by': 'alice' };
    informer.emit('MODIFIED', retitled);
    const inactive = structuredClone(retitled);
    inactive.metadata.resourceVersion = '4';
    inactive.status = { state: 'Inactive' };
    inactive.spec.schema.spec = { name: 'string' };
    informer.emit('MODIFIED', inactive);

    const list = api.RgdRevisionList.parse(catalog.revisions(actor('dev'), 'web-app'));
    expect(list.totalCount).toBe(3);
    expect(list.items.map((i) => [i.revision, i.resourceVersion])).toEqual([[3, '4'], [2, '3'], [1, '1']]);
    expect(list.items[0].summary).toBe('status Active → Inactive; schema changed');
    expect(list.items[1]).toMatchObject({ summary: 'catalog metadata changed (title)', changedBy: 'alice' });
    expect(list.items[2].summary).toBe('first seen in the catalog');
    expect(Date.parse(list.items[0].changedAt)).toBeGreaterThan(Date.parse(list.items[1].changedAt));
  });

  it('keeps a bounded number per RGD', () => {
    const { informer, catalog } = setup();
    for (let i = 0; i < maxRevisionsPerRgd + 10; i++) {
      const next = webApp();
      next.metadata.resourceVersion = String(10 + i);
      next.metadata.annotations = { ...next.metadata.annotations, 'portico.dev/title': `v${i}` };
      informer.emit('MODIFIED', next);
    }
    const list = catalog.revisions(actor('dev'), 'web-app');
    expect(list.totalCount).toBe(maxRevisionsPerRgd);
    expect(list.items[0].revision).toBe(maxRevisionsPerRgd + 11);
  });
});
