import { beforeEach, describe, expect, it } from 'vitest';
import { isPorticoError } from '@portico/core';
import { createCatalog, type Catalog, type CatalogChange } from '../../src/catalog/index.js';
import { actor, fakeAuthz, fakeInformer, rgd } from './helpers.js';

const meta = (category: string, title: string, description: string, tags: string, extra: Record<string, string> = {}) => ({
  'portico.dev/category': category,
  'portico.dev/title': title,
  'portico.dev/description': description,
  'portico.dev/tags': tags,
  ...extra,
});

const sample = () => [
  rgd('web-app', { kind: 'WebApp', created: '2024-01-05T00:00:00Z', annotations: meta('web', 'Web Application', 'Deployment with Service and Ingress', 'web,http') }),
  rgd('api-service', { kind: 'ApiService', created: '2024-02-01T00:00:00Z', annotations: meta('Web', 'API Service', 'A stateless HTTP API', 'http,api') }),
  rgd('postgres', {
    kind: 'PostgresDatabase',
    created: '2024-01-10T00:00:00Z',
    annotations: meta('databases', 'PostgreSQL', 'Managed relational database', 'sql,database'),
    spec: { name: 'string | required=true', storage: 'string | default=10Gi' },
    resources: [
      { id: 'secret', template: { apiVersion: 'v1', kind: 'Secret' } },
      { id: 'statefulset', template: { apiVersion: 'apps/v1', kind: 'StatefulSet', spec: { serviceName: '${service.metadata.name}' } } },
      { id: 'service', template: { apiVersion: 'v1', kind: 'Service' } },
    ],
  }),
  rgd('redis', { kind: 'RedisCache', created: '2024-01-20T00:00:00Z', state: 'Inactive', annotations: meta('caching', 'Redis', 'In-memory cache', 'cache,database') }),
  rgd('pg-backup', {
    kind: 'BackupPolicy',
    created: '2024-01-15T00:00:00Z',
    annotations: meta('platform', 'Backup policy', 'Nightly backups for PostgreSQL', 'backup', { 'portico.dev/extends-kind': 'PostgresDatabase' }),
  }),
  rgd('payments-ledger', {
    kind: 'Ledger',
    created: '2024-01-01T00:00:00Z',
    labels: { 'portico.dev/project': 'payments' },
    annotations: meta('databases', 'Payments ledger', 'Double-entry ledger store', 'sql,finance'),
  }),
  rgd('hidden-internal', { kind: 'Internal', catalog: false }),
];

const authzSetup = {
  admins: ['admin'],
  members: { dev: ['alpha'], dba: ['alpha'], payer: ['payments'], multi: ['alpha', 'beta', 'gamma'] },
  grants: {
    dev: ['rgds/alpha/*'],
    dba: ['rgds/alpha/databases/*'],
    payer: ['rgds/payments/*'],
    outsider: ['rgds/payments/*'],
    multi: ['rgds/gamma/*'],
  },
};

const names = (result: { items: Array<{ name: string }> }) => result.items.map((i) => i.name);

describe('catalog list', () => {
  let catalog: Catalog;
  const admin = actor('admin');
  beforeEach(() => {
    catalog = createCatalog({
      rgds: fakeInformer(sample()),
      authz: fakeAuthz(authzSetup),
      instanceCounts: (a) => new Map(a.id === 'admin' ? [['postgres', 3]] : []),
    });
  });

  it('lists catalog RGDs only, sorted by name, as RGD JSON', () => {
    const result = catalog.list(admin, {});
    expect(names(result)).toEqual(['api-service', 'payments-ledger', 'pg-backup', 'postgres', 'redis', 'web-app']);
    expect(result).toMatchObject({ totalCount: 6, page: 1, pageSize: 20 });
    const postgres = result.items.find((i) => i.name === 'postgres');
    expect(postgres).toEqual({
      name: 'postgres',
      title: 'PostgreSQL',
      description: 'Managed relational database',
      category: 'databases',
      tags: ['sql', 'database'],
      labels: {},
      apiVersion: 'kro.run/v1alpha1',
      kind: 'PostgresDatabase',
      extendsKinds: [],
      allowedDeploymentModes: ['direct', 'gitops', 'hybrid'],
      isClusterScoped: false,
      status: 'Active',
      instances: 3,
      createdAt: '2024-01-10T00:00:00Z',
      updatedAt: '2024-01-10T00:00:00Z',
      // Revisions are recorded after the entry is indexed (rgd-views.test.ts); the field is there from the start.
      lastIssuedRevision: expect.any(Number),
    });
  });

  it('filters by category case-insensitively', () => {
    expect(names(catalog.list(admin, { category: 'WEB' }))).toEqual(['api-service', 'web-app']);
  });

  it('searches name, title and description case-insensitively', () => {
    expect(names(catalog.list(admin, { search: 'POSTGRESQL' }))).toEqual(['pg-backup', 'postgres']);
    expect(names(catalog.list(admin, { search: 'ledger' }))).toEqual(['payments-ledger']);
    expect(names(catalog.list(admin, { search: 'stateless' }))).toEqual(['api-service']);
  });

  it('filters by extendsKind, tags (all required), status and project', () => {
    expect(names(catalog.list(admin, { extendsKind: 'postgresdatabase' }))).toEqual(['pg-backup']);
    expect(names(catalog.list(admin, { tags: 'sql' }))).toEqual(['payments-ledger', 'postgres']);
    expect(names(catalog.list(admin, { tags: 'sql, database' }))).toEqual(['postgres']);
    expect(names(catalog.list(admin, { status: 'inactive' }))).toEqual(['redis']);
    expect(names(catalog.list(admin, { project: 'payments' }))).toEqual(['payments-ledger']);
  });

  it('combines filters with AND', () => {
    expect(names(catalog.list(admin, { category: 'databases', search: 'managed' }))).toEqual(['postgres']);
    expect(names(catalog.list(admin, { category: 'web', tags: 'sql' }))).toEqual([]);
  });

  it('sorts by createdAt, updatedAt and category in either order, ties by name', () => {
    expect(names(catalog.list(admin, { sortBy: 'createdAt', sortOrder: 'asc' }))).toEqual([
      'payments-ledger', 'web-app', 'postgres', 'pg-backup', 'redis', 'api-service',
    ]);
    expect(names(catalog.list(admin, { sortBy: 'createdAt', sortOrder: 'desc' }))).toEqual([
      'api-service', 'redis', 'pg-backup', 'postgres', 'web-app', 'payments-ledger',
    ]);
    expect(names(catalog.list(admin, { sortBy: 'category', sortOrder: 'asc' }))).toEqual([
      'redis', 'payments-ledger', 'postgres', 'pg-backup', 'api-service', 'web-app',
    ]);
    expect(names(catalog.list(admin, { sortBy: 'category', sortOrder: 'desc' }))).toEqual([
      'api-service', 'web-app', 'pg-backup', 'payments-ledger', 'postgres', 'redis',
    ]);
    expect(names(catalog.list(admin, { sortBy: 'name', sortOrder: 'desc' }))[0]).toBe('web-app');
    expect(names(catalog.list(admin, { sortBy: 'updatedAt', sortOrder: 'desc' }))[0]).toBe('api-service');
  });

  it('pages with totalCount counting every match, not the page', () => {
    const second = catalog.list(admin, { page: 2, pageSize: 4 });
    expect(names(second)).toEqual(['redis', 'web-app']);
    expect(second).toMatchObject({ totalCount: 6, page: 2, pageSize: 4 });
    const beyond = catalog.list(admin, { page: 5, pageSize: 4 });
    expect(beyond.items).toEqual([]);
    expect(beyond.totalCount).toBe(6);
    const filtered = catalog.list(admin, { tags: 'http', pageSize: 1 });
    expect(names(filtered)).toEqual(['api-service']);
    expect(filtered.totalCount).toBe(2);
  });

  it('filters by a label selector, with paging and totalCount over the matches only', () => {
    const labelled = createCatalog({
      rgds: fakeInformer([
        ...sample(),
        rgd('orders-db', { kind: 'OrdersDb', labels: { team: 'data', tier: 'gold' } }),
        rgd('metrics-db', { kind: 'MetricsDb', labels: { team: 'data', tier: 'bronze' } }),
        rgd('shop-web', { kind: 'ShopWeb', labels: { team: 'web' } }),
      ]),
      authz: fakeAuthz(authzSetup),
    });
    expect(names(labelled.list(admin, { labelSelector: 'team=data' }))).toEqual(['metrics-db', 'orders-db']);
    expect(names(labelled.list(admin, { labelSelector: 'team in (data, web), tier!=bronze' }))).toEqual(['orders-db', 'shop-web']);
    expect(names(labelled.list(admin, { labelSelector: 'portico.dev/project' }))).toEqual(['payments-ledger']);
    expect(labelled.list(admin, { labelSelector: '!team' }).totalCount).toBe(6);
    const page = labelled.list(admin, { labelSelector: 'team', pageSize: 2, page: 2 });
    expect(names(page)).toEqual(['shop-web']);
    expect(page.totalCount).toBe(3);
    // Label keys and values are compared exactly, as Kubernetes does, unlike the other filters.
    expect(labelled.list(admin, { labelSelector: 'team=DATA' }).totalCount).toBe(0);
  });

  it('refuses a label selector that does not parse with 400 naming labelSelector, also to library callers', () => {
    let error: unknown;
    try {
      catalog.list(admin, { labelSelector: 'tier in gold' });
    } catch (e) {
      error = e;
    }
    expect(isPorticoError(error) && [error.status, error.code, error.message, error.details]).toEqual([
      400,
      'VALIDATION_FAILED',
      'invalid query parameter "labelSelector": "tier in gold": expected "(" after "in"',
      { fields: { labelSelector: '"tier in gold": expected "(" after "in"' }, in: 'query' },
    ]);
  });

  it('counts instances per caller and reports 0 without a counter', () => {
    expect(catalog.list(actor('dev'), { search: 'postgres' }).items.find((i) => i.name === 'postgres')?.instances).toBe(0);
    const plain = createCatalog({ rgds: fakeInformer(sample()), authz: fakeAuthz(authzSetup) });
    expect(plain.list(admin, {}).items.every((i) => i.instances === 0)).toBe(true);
  });

  it('filters() lists sorted unique categories, tags and projects, merging case variants', () => {
    expect(catalog.filters(admin)).toEqual({
      categories: ['caching', 'databases', 'platform', 'Web'],
      tags: ['api', 'backup', 'cache', 'database', 'finance', 'http', 'sql', 'web'],
      projects: ['payments'],
    });
  });
});

describe('catalog visibility', () => {
  let catalog: Catalog;
  let authz: ReturnType<typeof fakeAuthz>;
  beforeEach(() => {
    authz = fakeAuthz(authzSetup);
    catalog = createCatalog({ rgds: fakeInformer(sample()), authz });
  });

  it('shows a Server Admin everything', () => {
    expect(catalog.count(actor('admin'))).toEqual({ count: 6 });
  });

  it('shows a member with rgds/* every public RGD but not another project’s', () => {
    const dev = actor('dev');
    expect(names(catalog.list(dev, {}))).toEqual(['api-service', 'pg-backup', 'postgres', 'redis', 'web-app']);
    expect(catalog.count(dev)).toEqual({ count: 5 });
    expect(catalog.filters(dev).projects).toEqual([]);
    expect(catalog.list(dev, { project: 'payments' }).totalCount).toBe(0);
  });

  it('shows a member with rgds/databases/* only that category', () => {
    const dba = actor('dba');
    expect(names(catalog.list(dba, {}))).toEqual(['postgres']);
    expect(catalog.count(dba)).toEqual({ count: 1 });
    expect(catalog.filters(dba)).toEqual({ categories: ['databases'], tags: ['database', 'sql'], projects: [] });
    expect(() => catalog.get(dba, 'web-app')).toThrow(/not found/);
  });

  it('shows project members their project-labelled RGD along with public ones', () => {
    const payer = actor('payer');
    expect(names(catalog.list(payer, {}))).toContain('payments-ledger');
    expect(catalog.count(payer)).toEqual({ count: 6 });
    expect(catalog.filters(payer).projects).toEqual(['payments']);
    expect(catalog.get(payer, 'payments-ledger').name).toBe('payments-ledger');
  });

  it('shows a user without project membership nothing, whatever policy mentions them', () => {
    const outsider = actor('outsider');
    expect(catalog.list(outsider, {})).toEqual({ items: [], totalCount: 0, page: 1, pageSize: 20 });
    expect(catalog.count(outsider)).toEqual({ count: 0 });
    expect(catalog.filters(outsider)).toEqual({ categories: [], tags: [], projects: [] });
  });

  it('answers get of an invisible RGD exactly like a missing one', () => {
    const dev = actor('dev');
    const errorOf = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return e;
      }
      throw new Error('expected an error');
    };
    const hidden = errorOf(() => catalog.get(dev, 'payments-ledger'));
    const missing = errorOf(() => catalog.get(dev, 'no-such-rgd'));
    const notInCatalog = errorOf(() => catalog.get(actor('admin'), 'hidden-internal'));
    for (const [e, name] of [[hidden, 'payments-ledger'], [missing, 'no-such-rgd'], [notInCatalog, 'hidden-internal']] as const) {
      expect(isPorticoError(e) && e.code).toBe('NOT_FOUND');
      expect(isPorticoError(e) && e.details).toEqual({ resource: 'rgd', identifier: name });
    }
  });

  it('asks the authorizer at most once per member project per RGD', () => {
    authz.calls = 0;
    const multi = actor('multi');
    const result = catalog.list(multi, {});
    expect(result.totalCount).toBe(5); // public ones, through gamma
    expect(authz.calls).toBeLessThanOrEqual(6 * 3);
    authz.calls = 0;
    catalog.count(multi);
    expect(authz.calls).toBeLessThanOrEqual(6 * 3);
  });

  it('visibleTo follows the same rule', () => {
    const ledger = catalog.entry('payments-ledger')!;
    expect(catalog.visibleTo(actor('payer'), ledger)).toBe(true);
    expect(catalog.visibleTo(actor('dev'), ledger)).toBe(false);
    expect(catalog.visibleTo(actor('admin'), ledger)).toBe(true);
  });
});

describe('catalog detail and schema', () => {
  it('returns the compiled schema and the resource graph', () => {
    const catalog = createCatalog({ rgds: fakeInformer(sample()), authz: fakeAuthz(authzSetup) });
    const detail = catalog.get(actor('dev'), 'postgres');
    expect(detail.schema).toEqual({
      type: 'object',
      properties: { name: { type: 'string' }, storage: { type: 'string', default: '10Gi' } },
      required: ['name'],
      additionalProperties: false,
    });
    expect(detail.resources).toEqual([
      { id: 'secret', kind: 'Secret', dependsOn: [] },
      { id: 'statefulset', kind: 'StatefulSet', dependsOn: ['service'] },
      { id: 'service', kind: 'Service', dependsOn: [] },
    ]);
  });

  it('compiles once per revision and again after the RGD changes', () => {
    const informer = fakeInformer(sample());
    const catalog = createCatalog({ rgds: informer, authz: fakeAuthz(authzSetup) });
    const first = catalog.schemaOf(catalog.entry('postgres')!);
    catalog.list(actor('admin'), {});
    expect(catalog.schemaOf(catalog.entry('postgres')!)).toBe(first);
    expect(catalog.get(actor('admin'), 'postgres').schema).toBe(first);
    informer.emit('MODIFIED', rgd('postgres', { resourceVersion: '2', spec: { name: 'string', tier: 'string | default=gold' } }));
    const second = catalog.schemaOf(catalog.entry('postgres')!);
    expect(second).not.toBe(first);
    expect(second.properties?.tier).toEqual({ type: 'string', default: 'gold' });
  });

  it('still shows an RGD whose schema is broken, and refuses to use the schema for instances', () => {
    const broken = rgd('broken', { spec: { size: 'strng' } });
    const catalog = createCatalog({ rgds: fakeInformer([broken]), authz: fakeAuthz(authzSetup) });
    const detail = catalog.get(actor('admin'), 'broken');
    expect(detail.schema['x-portico-schema-error']).toMatch(/spec\.size: unknown type "strng"/);
    let error: unknown;
    try {
      catalog.schemaOf(catalog.entry('broken')!);
    } catch (e) {
      error = e;
    }
    expect(isPorticoError(error) && error.code).toBe('UNPROCESSABLE');
  });

  it('finds the entry for an instance kind, optionally by group', () => {
    const catalog = createCatalog({
      rgds: fakeInformer([rgd('a-web', { kind: 'WebApp', group: 'one.example.com' }), rgd('b-web', { kind: 'WebApp', group: 'two.example.com' })]),
      authz: fakeAuthz(authzSetup),
    });
    expect(catalog.entryForKind('WebApp')?.name).toBe('a-web');
    expect(catalog.entryForKind('WebApp', 'two.example.com')?.name).toBe('b-web');
    expect(catalog.entryForKind('WebApp', 'kro.run')).toBeUndefined();
    expect(catalog.entryForKind('Nope')).toBeUndefined();
  });
});

describe('catalog follows the informer', () => {
  it('adds, updates and removes entries as events arrive, and tells listeners', () => {
    const informer = fakeInformer([]);
    const catalog = createCatalog({ rgds: informer, authz: fakeAuthz(authzSetup) });
    const changes: Array<[CatalogChange, string, string]> = [];
    catalog.onChange((action, entry) => changes.push([action, entry.name, entry.title]));
    const admin = actor('admin');

    informer.emit('ADDED', rgd('cache', { annotations: { 'portico.dev/title': 'Cache' } }));
    expect(names(catalog.list(admin, {}))).toEqual(['cache']);

    informer.emit('MODIFIED', rgd('cache', { resourceVersion: '2', annotations: { 'portico.dev/title': 'Redis Cache' } }));
    expect(catalog.list(admin, {}).items[0].title).toBe('Redis Cache');

    informer.emit('ADDED', rgd('internal', { catalog: false }));
    expect(catalog.count(admin)).toEqual({ count: 1 });

    informer.emit('MODIFIED', rgd('cache', { resourceVersion: '3', catalog: false }));
    expect(catalog.count(admin)).toEqual({ count: 0 });
    expect(catalog.entry('cache')).toBeUndefined();

    informer.emit('MODIFIED', rgd('internal', { resourceVersion: '2', annotations: { 'knodex.io/catalog': 'true' } }));
    expect(names(catalog.list(admin, {}))).toEqual(['internal']);

    informer.emit('DELETED', rgd('internal', { resourceVersion: '2' }));
    expect(catalog.count(admin)).toEqual({ count: 0 });
    expect(catalog.entryForKind('Internal')).toBeUndefined();

    expect(changes).toEqual([
      ['add', 'cache', 'Cache'],
      ['update', 'cache', 'Redis Cache'],
      ['delete', 'cache', 'Redis Cache'],
      ['add', 'internal', 'internal'],
      ['delete', 'internal', 'internal'],
    ]);
  });

  it('keeps serving when a listener throws, and stops listening after close', () => {
    const informer = fakeInformer([]);
    const catalog = createCatalog({ rgds: informer, authz: fakeAuthz(authzSetup) });
    const seen: string[] = [];
    catalog.onChange(() => {
      throw new Error('listener bug');
    });
    const subscription = catalog.onChange((_a, e) => seen.push(e.name));
    informer.emit('ADDED', rgd('one'));
    subscription.close();
    informer.emit('ADDED', rgd('two'));
    expect(seen).toEqual(['one']);
    expect(catalog.count(actor('admin'))).toEqual({ count: 2 });
    catalog.close();
    expect(informer.listenerCount()).toBe(0);
    informer.emit('ADDED', rgd('three'));
    expect(catalog.count(actor('admin'))).toEqual({ count: 2 });
  });

  it('serves a large catalog from the index within the authorization budget', () => {
    const many = Array.from({ length: 500 }, (_, i) =>
      rgd(`rgd-${String(i).padStart(3, '0')}`, {
        created: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
        annotations: { 'portico.dev/category': i % 2 ? 'web' : 'databases', 'portico.dev/tags': `t${i % 5}` },
      }),
    );
    const authz = fakeAuthz(authzSetup);
    const informer = fakeInformer(many);
    const catalog = createCatalog({ rgds: informer, authz });
    const schemaBefore = catalog.schemaOf(catalog.entry('rgd-123')!);
    authz.calls = 0;
    const page = catalog.list(actor('dba'), { sortBy: 'createdAt', sortOrder: 'desc', pageSize: 10, page: 3 });
    expect(authz.calls).toBeLessThanOrEqual(500);
    expect(page.totalCount).toBe(250);
    expect(names(page)).toEqual(['rgd-458', 'rgd-456', 'rgd-454', 'rgd-452', 'rgd-450', 'rgd-448', 'rgd-446', 'rgd-444', 'rgd-442', 'rgd-440']);
    expect(catalog.schemaOf(catalog.entry('rgd-123')!)).toBe(schemaBefore);
  });
});
