import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import * as api from '@portico/api';
import { roleTemplates } from '../../src/projects/index.js';

const crd = parse(readFileSync(fileURLToPath(new URL('../../../../deploy/crds/project.yaml', import.meta.url)), 'utf8'));
const version = crd.spec.versions[0];
const spec = version.schema.openAPIV3Schema.properties.spec;
const role = spec.properties.roles.items;
const matches = (pattern: string, value: string) => new RegExp(pattern).test(value);

describe('deploy/crds/project.yaml', () => {
  it('defines portico.dev/v1alpha1 Project, namespaced, served and stored, short name proj', () => {
    expect(crd.metadata.name).toBe('projects.portico.dev');
    expect(crd.spec).toMatchObject({ group: 'portico.dev', scope: 'Namespaced', names: { kind: 'Project', plural: 'projects', shortNames: ['proj'] } });
    expect(version).toMatchObject({ name: 'v1alpha1', served: true, storage: true });
    expect(version.additionalPrinterColumns.map((c: { name: string }) => c.name)).toEqual(['Description', 'Destinations', 'Roles', 'Age']);
  });

  it('accepts exactly the destination patterns the API accepts', () => {
    const pattern = spec.properties.destinations.items.properties.namespace.pattern;
    for (const ns of ['*', 'dev-*', '*-prod', 'staging', 'a', 'a*b', '**', 'Dev', '-x', 'x-', '../x', 'dev-*-x', '']) {
      expect([ns, matches(pattern, ns)]).toEqual([ns, api.NamespacePattern.safeParse(ns).success]);
    }
  });

  it('accepts the same role names and subjects as the API', () => {
    for (const name of ['viewer', 'platform-admin', 'Viewer', 'a:b', '-x', 'x1']) {
      expect([name, matches(role.properties.name.pattern, name)]).toEqual([name, api.DnsLabel.safeParse(name).success]);
    }
    for (const subject of ['alice', 'alice@example.com', 'a/b', 'CN=x', '-x', 'team:ops']) {
      expect([subject, matches(role.properties.users.items.pattern, subject)]).toEqual([subject, api.SubjectName.safeParse(subject).success]);
    }
  });

  it('accepts the role template policies and rejects malformed triples', () => {
    const pattern = role.properties.policies.items.pattern;
    for (const policy of roleTemplates.flatMap((r) => r.policies)) expect(matches(pattern, policy)).toBe(true);
    for (const policy of ['instances/*, get', 'instances/*, fetch, allow', 'instances/*, get, permit', 'a b, get, allow']) {
      expect(matches(pattern, policy)).toBe(false);
    }
  });
});
