import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CreateProjectRequest } from '@portico/api';
import type { KubeObject } from '@portico/core';
import {
  buildCatalogEntry,
  compileSimpleSchema,
  expressionsIn,
  validateValues,
  withoutStringLiterals,
  type CatalogEntry,
  type JsonSchemaObject,
} from '../../src/catalog/index.js';

/**
 * The sample catalog `npm start` loads must stay loadable and true to what it demonstrates: every file parses,
 * every RGD builds and compiles, every `${...}` reads something that exists.
 */
const root = fileURLToPath(new URL('../../../../examples/catalog', import.meta.url));

const yamlFiles = (dir: string): string[] =>
  readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) return yamlFiles(full);
      return /\.ya?ml$/.test(name) ? [full] : [];
    });

const documents: Array<{ file: string; object: KubeObject }> = yamlFiles(root).flatMap((file) =>
  parseAllDocuments(readFileSync(file, 'utf8')).flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0].message}`);
    const object = doc.toJS() as KubeObject | null;
    return object ? [{ file: path.relative(root, file), object }] : [];
  }),
);

const ofKind = (kind: string) => documents.filter((d) => d.object.kind === kind);
const rgds = ofKind('ResourceGraphDefinition');
const entries: Array<{ file: string; object: KubeObject; entry: CatalogEntry }> = rgds.map((d) => ({ ...d, entry: buildCatalogEntry(d.object) }));
const catalog = entries.filter((e) => e.entry.inCatalog);

/** Whether `schema.spec.<segments>` exists; below an array, a map or a free-form object anything may follow. */
function schemaHasPath(schema: JsonSchemaObject, segments: string[]): boolean {
  let node = schema;
  for (const segment of segments) {
    if (node.type === 'array' || node['x-kubernetes-preserve-unknown-fields'] || typeof node.additionalProperties === 'object') return true;
    const next = node.properties?.[segment];
    if (!next) return false;
    node = next;
  }
  return true;
}

/** Every `${...}` of an RGD: its resources and its status fields. */
function rgdExpressions(object: KubeObject): string[] {
  const out: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === 'string') out.push(...expressionsIn(value));
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(object.spec?.resources);
  walk(object.spec?.schema?.status);
  return out;
}

describe('examples/catalog', () => {
  it('parses into well-formed Kubernetes objects', () => {
    expect(documents.length).toBeGreaterThan(20);
    for (const { file, object } of documents) {
      expect(typeof object.apiVersion, file).toBe('string');
      expect(typeof object.kind, file).toBe('string');
      // A CRD is named `<plural>.<group>` (a DNS subdomain); every other sample object by a DNS label.
      const name = object.kind === 'CustomResourceDefinition' ? /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/ : /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
      expect(object.metadata?.name, file).toMatch(name);
    }
  });

  it('has at least 10 catalog RGDs with unique names and kinds, and one RGD outside the catalog', () => {
    expect(catalog.length).toBeGreaterThanOrEqual(10);
    expect(new Set(entries.map((e) => e.entry.name)).size).toBe(entries.length);
    expect(new Set(entries.map((e) => `${e.entry.group}/${e.entry.kind}`)).size).toBe(entries.length);
    expect(entries.filter((e) => !e.entry.inCatalog).map((e) => e.entry.name)).toEqual(['debug-toolbox']);
  });

  it('compiles the schema of every RGD', () => {
    for (const { file, entry } of entries) {
      expect(() => compileSimpleSchema(entry.schemaSpec, entry.schemaTypes), file).not.toThrow();
    }
  });

  it('describes every catalog RGD fully', () => {
    for (const { file, entry } of catalog) {
      expect(entry.title, file).not.toBe(entry.name);
      expect(entry.description.length, file).toBeGreaterThan(40);
      expect(entry.category, file).not.toBe('uncategorized');
      expect(entry.tags.length, file).toBeGreaterThan(1);
      expect(entry.icon, file).toBeTruthy();
      expect(entry.docsUrl, file).toMatch(/^https:\/\//);
      expect(entry.kind, file).toMatch(/^[A-Z][A-Za-z0-9]{0,62}$/);
      expect(entry.version, file).toBe('v1alpha1');
      expect(entry.resources.length, file).toBeGreaterThan(0);
    }
    const categories = new Set(catalog.map((e) => e.entry.category));
    for (const c of ['web', 'databases', 'caching', 'messaging', 'jobs', 'storage', 'observability', 'platform']) expect(categories).toContain(c);
  });

  it('demonstrates the alias, cluster scope, restricted modes, project-only and extends-kind', () => {
    const aliased = catalog.filter((e) => !e.object.metadata.annotations?.['portico.dev/catalog']);
    expect(aliased.map((e) => e.entry.name)).toEqual(['rabbitmq-queue']);
    expect(Object.keys(aliased[0].object.metadata.annotations ?? {}).every((k) => k.startsWith('knodex.io/'))).toBe(true);
    expect(catalog.filter((e) => e.entry.isClusterScoped).map((e) => e.entry.kind)).toEqual(['TenantNamespace']);
    expect(catalog.some((e) => e.entry.allowedDeploymentModes.join() === 'direct,gitops')).toBe(true);
    expect(catalog.filter((e) => e.entry.project).map((e) => [e.entry.name, e.entry.project])).toEqual([['payment-gateway', 'payments']]);
    const kinds = new Set(catalog.map((e) => e.entry.kind));
    const addOns = catalog.filter((e) => e.entry.extendsKinds.length > 0);
    expect(addOns.map((e) => e.entry.kind).sort()).toEqual(['PostgresBackupPolicy', 'WebAppMonitoring']);
    for (const { entry } of addOns) for (const k of entry.extendsKinds) expect(kinds, `${entry.name} extends ${k}`).toContain(k);
  });

  it('uses defaults, enums, required fields, nested objects, arrays, maps and custom types', () => {
    const schemas = catalog.map((e) => compileSimpleSchema(e.entry.schemaSpec, e.entry.schemaTypes));
    const all = (s: JsonSchemaObject): JsonSchemaObject[] => [
      s,
      ...Object.values(s.properties ?? {}).flatMap(all),
      ...(s.items ? all(s.items) : []),
      ...(typeof s.additionalProperties === 'object' ? all(s.additionalProperties) : []),
    ];
    const nodes = schemas.flatMap(all);
    expect(nodes.some((n) => n.default !== undefined)).toBe(true);
    expect(nodes.some((n) => n.enum)).toBe(true);
    expect(nodes.some((n) => n.required?.length)).toBe(true);
    expect(nodes.some((n) => n.type === 'array')).toBe(true);
    expect(nodes.some((n) => typeof n.additionalProperties === 'object')).toBe(true);
    expect(schemas.some((s) => Object.values(s.properties ?? {}).some((p) => p.properties))).toBe(true);
    expect(catalog.some((e) => e.entry.schemaTypes)).toBe(true);
  });

  it('accepts values that fill in only the required fields, with defaults applied', () => {
    // Required fields, also inside optional objects that default to {} (their required children must be given).
    const sampleFor = (schema: JsonSchemaObject): Record<string, unknown> =>
      Object.fromEntries(
        Object.entries(schema.properties ?? {}).flatMap(([key, field]) => {
          if (field.type === 'object' && field.properties) {
            const nested = sampleFor(field);
            return schema.required?.includes(key) || Object.keys(nested).length > 0 ? [[key, nested]] : [];
          }
          if (!schema.required?.includes(key)) return [];
          const value =
            field.enum?.[0] ?? (field.type === 'array' ? ['checkout'] : field.pattern?.startsWith('^https') ? 'https://git.example.com/site.git' : 'example');
          return [[key, value]];
        }),
      );
    for (const { file, entry } of catalog) {
      const schema = compileSimpleSchema(entry.schemaSpec, entry.schemaTypes);
      const result = validateValues(schema, sampleFor(schema));
      expect(result, file).toMatchObject({ ok: true });
    }
  });

  it('has resources with valid ids, a template or externalRef each, and no dependency cycle', () => {
    for (const { file, object, entry } of entries) {
      const ids = entry.resources.map((r) => r.id);
      expect(new Set(ids).size, file).toBe(ids.length);
      for (const id of ids) expect(id, file).toMatch(/^[a-z][A-Za-z0-9]*$/);
      for (const r of object.spec.resources as Array<{ template?: KubeObject; externalRef?: KubeObject }>) {
        const target = r.template ?? r.externalRef;
        expect(target?.apiVersion, file).toBeTruthy();
        expect(target?.kind, file).toBeTruthy();
      }
      // Kahn: repeatedly take a resource whose dependencies are all placed.
      const placed = new Set<string>();
      let progress = true;
      while (progress) {
        progress = false;
        for (const r of entry.resources) {
          if (!placed.has(r.id) && r.dependsOn.every((d) => placed.has(d))) {
            placed.add(r.id);
            progress = true;
          }
        }
      }
      expect(placed.size, `${file}: dependency cycle`).toBe(ids.length);
    }
  });

  it('only reads schema fields and resources that exist', () => {
    for (const { file, object, entry } of entries) {
      const schema = compileSimpleSchema(entry.schemaSpec, entry.schemaTypes);
      const ids = new Set(entry.resources.map((r) => r.id));
      for (const written of rgdExpressions(object)) {
        const expression = withoutStringLiterals(written);
        // Comprehension variables (`list.map(q, q.name)`) and CEL's json library are roots too.
        const locals = new Set([...expression.matchAll(/\.(?:map|filter|all|exists|exists_one)\(\s*([A-Za-z_]\w*)\s*,/g)].map((m) => m[1]));
        for (const m of expression.matchAll(/(?<![\w.$"])([A-Za-z_][A-Za-z0-9_]*)\s*\./g)) {
          const rootName = m[1];
          expect(rootName === 'schema' || rootName === 'json' || ids.has(rootName) || locals.has(rootName), `${file}: \${${expression}} reads unknown "${rootName}"`).toBe(true);
        }
        for (const m of expression.matchAll(/(?<![\w.])schema\.(spec|metadata)((?:\.[A-Za-z_][A-Za-z0-9_]*)*)/g)) {
          const segments = m[2].split('.').filter(Boolean);
          if (m[1] === 'metadata') expect(['name', 'namespace', 'labels', 'annotations'], file).toContain(segments[0]);
          else expect(schemaHasPath(schema, segments), `${file}: schema.spec.${segments.join('.')} is not in the schema`).toBe(true);
        }
      }
    }
  });

  it('declares the sample namespaces', () => {
    const namespaces = ofKind('Namespace').map((d) => d.object.metadata.name);
    expect(namespaces.sort()).toEqual(['default', 'dev', 'payments-dev', 'payments-prod', 'portico', 'prod', 'staging', 'team-a-dev', 'team-a-prod']);
  });

  it('declares the default and payments projects with the conventional roles and nobody bound', () => {
    const projects = ofKind('Project');
    expect(projects.map((p) => p.object.metadata.name).sort()).toEqual(['default', 'payments']);
    const conventional = {
      'platform-admin': ['instances/*, *, allow', 'secrets/*, *, allow', 'rgds/*, *, allow', 'members/*, *, allow'],
      developer: ['instances/*, *, allow', 'rgds/*, get, allow'],
      viewer: ['instances/*, get, allow', 'rgds/*, get, allow'],
    };
    const destinations = { default: ['dev', 'staging'], payments: ['payments-*'] };
    for (const { file, object } of projects) {
      expect(object.apiVersion, file).toBe('portico.dev/v1alpha1');
      expect(object.metadata.namespace, file).toBe('portico');
      const parsed = CreateProjectRequest.safeParse({ name: object.metadata.name, ...object.spec });
      expect(parsed.success, `${file}: ${parsed.error?.message}`).toBe(true);
      const spec = object.spec as { destinations: Array<{ namespace: string }>; roles: Array<{ name: string; policies: string[]; users: string[]; groups: string[] }> };
      expect(spec.destinations.map((d) => d.namespace), file).toEqual(destinations[object.metadata.name as keyof typeof destinations]);
      expect(Object.fromEntries(spec.roles.map((r) => [r.name, r.policies])), file).toEqual(conventional);
      for (const role of spec.roles) {
        expect(role.users, file).toEqual([]);
        expect(role.groups, file).toEqual([]);
      }
    }
  });
});
