import { describe, expect, it } from 'vitest';
import { buildCatalogEntry, isCatalogRgd } from '../../src/catalog/index.js';
import { rgd } from './helpers.js';

describe('buildCatalogEntry: annotations', () => {
  it('reads every portico.dev annotation and label', () => {
    const entry = buildCatalogEntry(
      rgd('web-app', {
        kind: 'WebApp',
        group: 'apps.example.com',
        annotations: {
          'portico.dev/title': 'Web Application',
          'portico.dev/description': 'Deployment, Service and Ingress',
          'portico.dev/tags': ' web, http ,,frontend ',
          'portico.dev/category': 'web',
          'portico.dev/icon': 'globe',
          'portico.dev/docs-url': 'https://docs.example.com/webapp',
          'portico.dev/deployment-modes': 'direct,gitops',
          'portico.dev/extends-kind': 'Namespace, Tenant',
        },
        labels: { 'portico.dev/project': 'payments', team: 'checkout' },
        scope: 'Cluster',
        resourceVersion: '42',
      }),
    );
    expect(entry).toMatchObject({
      name: 'web-app',
      inCatalog: true,
      title: 'Web Application',
      description: 'Deployment, Service and Ingress',
      tags: ['web', 'http', 'frontend'],
      category: 'web',
      icon: 'globe',
      docsUrl: 'https://docs.example.com/webapp',
      allowedDeploymentModes: ['direct', 'gitops'],
      extendsKinds: ['Namespace', 'Tenant'],
      project: 'payments',
      labels: { 'portico.dev/project': 'payments', team: 'checkout' },
      group: 'apps.example.com',
      version: 'v1alpha1',
      apiVersion: 'apps.example.com/v1alpha1',
      kind: 'WebApp',
      isClusterScoped: true,
      status: 'Active',
      revision: '42',
    });
  });

  it('applies the documented defaults when annotations are absent', () => {
    const object = rgd('bare');
    delete object.status;
    const entry = buildCatalogEntry(object);
    expect(entry.title).toBe('bare');
    expect(entry.description).toBe('');
    expect(entry.category).toBe('uncategorized');
    expect(entry.tags).toEqual([]);
    expect(entry.extendsKinds).toEqual([]);
    expect(entry.allowedDeploymentModes).toEqual(['direct', 'gitops', 'hybrid']);
    expect(entry.status).toBe('Inactive');
    expect(entry.group).toBe('kro.run');
    expect(entry.apiVersion).toBe('kro.run/v1alpha1');
    expect(entry.isClusterScoped).toBe(false);
    expect(entry).not.toHaveProperty('icon');
    expect(entry).not.toHaveProperty('docsUrl');
    expect(entry).not.toHaveProperty('project');
  });

  it('accepts the knodex.io alias for annotations and the project label', () => {
    const entry = buildCatalogEntry(
      rgd('legacy', {
        catalog: false,
        annotations: { 'knodex.io/catalog': 'true', 'knodex.io/title': 'Legacy', 'knodex.io/category': 'databases', 'knodex.io/tags': 'sql' },
        labels: { 'knodex.io/project': 'alpha' },
      }),
    );
    expect(entry.inCatalog).toBe(true);
    expect(entry.title).toBe('Legacy');
    expect(entry.category).toBe('databases');
    expect(entry.tags).toEqual(['sql']);
    expect(entry.project).toBe('alpha');
  });

  it('prefers portico.dev over knodex.io when both are set, key by key', () => {
    const entry = buildCatalogEntry(
      rgd('both', {
        annotations: { 'portico.dev/title': 'Ours', 'knodex.io/title': 'Theirs', 'knodex.io/category': 'caching' },
      }),
    );
    expect(entry.title).toBe('Ours');
    expect(entry.category).toBe('caching');
    const optedOut = rgd('opted-out', { catalog: false, annotations: { 'portico.dev/catalog': 'false', 'knodex.io/catalog': 'true' } });
    expect(isCatalogRgd(optedOut)).toBe(false);
  });

  it('is not in the catalog without the annotation or with a value other than "true"', () => {
    expect(isCatalogRgd(rgd('none', { catalog: false }))).toBe(false);
    expect(isCatalogRgd(rgd('yes-please', { catalog: false, annotations: { 'portico.dev/catalog': 'yes' } }))).toBe(false);
    expect(buildCatalogEntry(rgd('none', { catalog: false })).inCatalog).toBe(false);
  });

  it('ignores unknown deployment modes and falls back to all when none is known', () => {
    const modes = (value: string) => buildCatalogEntry(rgd('m', { annotations: { 'portico.dev/deployment-modes': value } })).allowedDeploymentModes;
    expect(modes('GitOps, bogus ,hybrid')).toEqual(['gitops', 'hybrid']);
    expect(modes('direct')).toEqual(['direct']);
    expect(modes('bogus')).toEqual(['direct', 'gitops', 'hybrid']);
  });
});

describe('buildCatalogEntry: timestamps and revision', () => {
  it('takes updatedAt from the newest condition transition', () => {
    const entry = buildCatalogEntry(
      rgd('t', {
        created: '2024-03-01T10:00:00Z',
        conditions: [
          { type: 'Ready', status: 'True', lastTransitionTime: '2024-03-05T08:30:00Z' },
          { type: 'GraphVerified', status: 'True', lastTransitionTime: '2024-03-02T00:00:00Z' },
        ],
      }),
    );
    expect(entry.createdAt).toBe('2024-03-01T10:00:00Z');
    expect(entry.updatedAt).toBe('2024-03-05T08:30:00Z');
  });

  it('uses creationTimestamp when no condition is newer, and the updated-at annotation when present', () => {
    expect(buildCatalogEntry(rgd('t', { created: '2024-03-01T10:00:00Z' })).updatedAt).toBe('2024-03-01T10:00:00Z');
    const annotated = buildCatalogEntry(
      rgd('t', {
        created: '2024-03-01T10:00:00Z',
        annotations: { 'portico.dev/updated-at': '2024-06-01T12:00:00Z' },
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-03-05T08:30:00Z' }],
      }),
    );
    expect(annotated.updatedAt).toBe('2024-06-01T12:00:00Z');
  });

  it('falls back to the generation when there is no resourceVersion', () => {
    const object = rgd('g');
    delete object.metadata.resourceVersion;
    object.metadata.generation = 7;
    expect(buildCatalogEntry(object).revision).toBe('g7');
  });
});

describe('buildCatalogEntry: resources', () => {
  it('lists each resource with its kind and the resources its expressions read', () => {
    const entry = buildCatalogEntry(
      rgd('graph', {
        resources: [
          {
            id: 'deployment',
            template: {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              metadata: { name: '${schema.spec.name}' },
              spec: { template: { spec: { containers: [{ env: [{ name: 'DB', value: '${database.status.endpoint}:${secret.data.port}' }] }] } } },
            },
            readyWhen: ['${deployment.status.availableReplicas == deployment.spec.replicas}'],
          },
          { id: 'database', template: { apiVersion: 'v1', kind: 'Service', metadata: { name: '${schema.spec.name}-db' } } },
          { id: 'secret', externalRef: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'shared' } } },
          {
            id: 'ingress',
            template: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', spec: { rules: [{ host: '${schema.spec.host}' }] } },
            includeWhen: ['${schema.spec.ingress.enabled && service.spec.clusterIP != ""}'],
          },
          { id: 'service', template: { apiVersion: 'v1', kind: 'Service', spec: { selector: '${{"app": deployment.metadata.name}}' } } },
        ],
      }),
    );
    expect(entry.resources).toEqual([
      { id: 'deployment', kind: 'Deployment', dependsOn: ['database', 'secret'] },
      { id: 'database', kind: 'Service', dependsOn: [] },
      { id: 'secret', kind: 'Secret', dependsOn: [] },
      { id: 'ingress', kind: 'Ingress', dependsOn: ['service'] },
      { id: 'service', kind: 'Service', dependsOn: ['deployment'] },
    ]);
  });

  it('does not count text outside ${...}, string literals or nested field names as references', () => {
    const entry = buildCatalogEntry(
      rgd('plain', {
        resources: [
          {
            id: 'a',
            template: { kind: 'ConfigMap', data: { note: 'b.status is not an expression', path: '${schema.spec.b.c}', text: '${"c.status" + \'b.x\'}' } },
          },
          { id: 'b', template: { kind: 'ConfigMap' } },
          { id: 'c', template: { kind: 'ConfigMap' } },
        ],
      }),
    );
    expect(entry.resources[0].dependsOn).toEqual([]);
  });
});
