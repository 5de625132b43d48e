import { describe, expect, it } from 'vitest';
import { compilePolicy, compileProjectPolicies, objectMatch, validateRoles } from '../../src/rbac/index.js';
import { scopeMatch } from '../../src/rbac/object-match.js';
import { roleTemplates } from '../../src/projects/index.js';
import { role } from './world.js';

const compileOne = (policy: string) => compilePolicy('alpha', policy);

describe('compilePolicy: project-relative objects become project-scoped Casbin objects', () => {
  it.each([
    ['instances/*, get, allow', ['instances/alpha/*', 'get', 'allow']],
    ['instances/dev/*, *, allow', ['instances/alpha/dev/*', '*', 'allow']],
    ['instances/dev/WebApp/shop, delete, deny', ['instances/alpha/dev/WebApp/shop', 'delete', 'deny']],
    ['rgds/*, get, allow', ['rgds/alpha/*', 'get', 'allow']],
    ['rgds/databases/*, list, allow', ['rgds/alpha/databases/*', 'list', 'allow']],
    ['secrets/*, *, allow', ['secrets/alpha/*', '*', 'allow']],
    ['secrets/prod/db-password, get, deny', ['secrets/alpha/prod/db-password', 'get', 'deny']],
    ['members/*, *, allow', ['projects/alpha/members', '*', 'allow']],
    ['members, create, allow', ['projects/alpha/members', 'create', 'allow']],
    ['  instances/dev-*/WebApp/* ,get ,   deny  ', ['instances/alpha/dev-*/WebApp/*', 'get', 'deny']],
    ['instances/*/App.v2/x_y, update, allow', ['instances/alpha/*/App.v2/x_y', 'update', 'allow']],
  ])('%s', (policy, line) => {
    expect(compileOne(policy)).toEqual({ lines: [line] });
  });
});

describe('compilePolicy: every kind of invalid policy is an error saying what is wrong', () => {
  it.each([
    ['roles/*, update, allow', 'unknown resource "roles"'],
    ['projects/*, create, allow', 'a project policy may grant only get and update of projects'],
    ['projects/*, delete, allow', 'a project policy may grant only get and update of projects'],
    ['projects/alpha/roles, update, allow', 'projects takes no path'],
    ['*, *, allow', 'unknown resource "*"'],
    ['inst*/x, get, allow', 'unknown resource "inst*"'],
    ['INSTANCES/*, get, allow', 'unknown resource "INSTANCES"'],
    ['instances/../beta/*, get, allow', 'must not contain ".."'],
    ['instances/dev/..x, get, allow', 'must not contain ".."'],
    ['instances/a b, get, allow', 'characters outside'],
    ['instances/$(whoami), get, allow', 'characters outside'],
    ['instances/dev\\x, get, allow', 'characters outside'],
    ['instances/ü, get, allow', 'characters outside'],
    ['instances//x, get, allow', 'empty path segment'],
    ['instances/./x, get, allow', 'must not contain "." segments'],
    ['instances/x/, get, allow', 'empty path segment'],
    ['instances, get, allow', 'instances/<namespace>/<kind>/<name>'],
    ['instances/a/b/c/d, get, allow', 'instances/<namespace>/<kind>/<name>'],
    ['secrets/a/b/c, get, allow', 'secrets/<namespace>/<name>'],
    ['rgds/a/b/c, get, allow', 'rgds/<category>/<name>'],
    ['members/alice, create, allow', 'members takes no path'],
    [', get, allow', 'the object is empty'],
    ['instances/*, fetch, allow', 'unknown action "fetch"'],
    ['instances/*, GET, allow', 'unknown action "GET"'],
    ['instances/*, , allow', 'unknown action ""'],
    ['instances/*, get, permit', 'unknown effect "permit"'],
    ['instances/*, get, Allow', 'unknown effect "Allow"'],
    ['instances/*, get', '3 comma-separated parts), got 2'],
    ['instances/*, get, allow, extra', '3 comma-separated parts), got 4'],
    ['instances/*', '3 comma-separated parts), got 1'],
    ['', 'got 1'],
  ])('%s', (policy, fragment) => {
    const result = compileOne(policy);
    expect('error' in result && result.error).toContain(fragment);
  });

  it('reports the role and the policy, and keeps the valid lines of the same role', () => {
    const compiled = compileProjectPolicies({
      name: 'alpha',
      roles: [role('dev', ['instances/*, *, allow', 'roles/*, update, allow', 'secrets/*, get, maybe'])],
    });
    expect(compiled.errors).toEqual([
      { role: 'dev', policy: 'roles/*, update, allow', message: expect.stringContaining('unknown resource "roles"') },
      { role: 'dev', policy: 'secrets/*, get, maybe', message: expect.stringContaining('unknown effect "maybe"') },
    ]);
    expect(compiled.policies).toEqual([
      ['proj:alpha:dev', 'projects/alpha', 'get', 'allow', '*'],
      ['proj:alpha:dev', 'instances/alpha/*', '*', 'allow', '*'],
    ]);
  });

  it('rejects invalid and duplicated role names without compiling them', () => {
    const compiled = compileProjectPolicies({
      name: 'alpha',
      roles: [role('Bad:Name', ['instances/*, *, allow'], { users: ['eve'] }), role('dev', []), role('dev', ['instances/*, *, allow'], { users: ['eve'] })],
    });
    expect(compiled.roles).toEqual(['dev']);
    expect(compiled.errors.map((e) => e.role)).toEqual(['Bad:Name', 'dev']);
    expect(compiled.policies).toEqual([['proj:alpha:dev', 'projects/alpha', 'get', 'allow', '*']]);
    expect(compiled.bindings.size).toBe(0);
  });
});

describe('compileProjectPolicies', () => {
  it('gives every role the implicit project get line and maps users and groups to role subjects', () => {
    const compiled = compileProjectPolicies({
      name: 'alpha',
      roles: [
        role('developer', ['instances/*, *, allow'], { users: ['alice'], groups: ['devs'] }),
        role('viewer', [], { users: ['alice', 'bob'], groups: ['devs'] }),
      ],
    });
    expect(compiled.errors).toEqual([]);
    expect(compiled.policies).toEqual([
      ['proj:alpha:developer', 'projects/alpha', 'get', 'allow', '*'],
      ['proj:alpha:developer', 'instances/alpha/*', '*', 'allow', '*'],
      ['proj:alpha:viewer', 'projects/alpha', 'get', 'allow', '*'],
    ]);
    expect(Object.fromEntries(compiled.bindings)).toEqual({
      'user:alice': ['proj:alpha:developer', 'proj:alpha:viewer'],
      'group:devs': ['proj:alpha:developer', 'proj:alpha:viewer'],
      'user:bob': ['proj:alpha:viewer'],
    });
  });

  it('compiles the conventional role templates without errors, with exactly the contract policies', () => {
    expect(roleTemplates.map((r) => [r.name, r.policies])).toEqual([
      ['platform-admin', ['instances/*, *, allow', 'secrets/*, *, allow', 'rgds/*, *, allow', 'members/*, *, allow']],
      ['developer', ['instances/*, *, allow', 'rgds/*, get, allow']],
      ['viewer', ['instances/*, get, allow', 'rgds/*, get, allow']],
    ]);
    const compiled = compileProjectPolicies({ name: 'alpha', roles: roleTemplates });
    expect(compiled.errors).toEqual([]);
    expect(compiled.roles).toEqual(['platform-admin', 'developer', 'viewer']);
  });

  it('never produces a line that reaches projects/*, the role-modify object or another project', () => {
    // Every resource word, separator trick and wildcard placement we could think of.
    const objects = [
      '*', '**', '*/*', 'members', 'members/*', 'members/**', 'roles', 'roles/*', 'projects', 'projects/*', 'projects/alpha',
      'projects/alpha/roles', 'projects/alpha/members', '../roles', 'members/../roles', 'instances/*', 'instances/**',
      'instances/../../projects/alpha/roles', 'instances/*/*/*', 'secrets/*', 'rgds/*', 'rgds/*/*', 'instances/./*',
      'instances/%2e%2e/x', 'members/roles', 'instances/*/roles', ' projects/alpha/roles', 'members/*/../roles',
    ];
    const actions = ['*', 'update', 'create'];
    const lines = [];
    for (const object of objects) for (const action of actions) {
      const result = compileOne(`${object}, ${action}, allow`);
      if ('lines' in result) lines.push(...result.lines);
    }
    expect(lines.length).toBeGreaterThan(10);
    for (const [object] of lines) {
      expect(objectMatch('projects/alpha/roles', object)).toBe(false);
      expect(objectMatch('projects/*', object)).toBe(false);
      expect(objectMatch('instances/beta/dev/WebApp/x', object)).toBe(false);
      expect(['projects/alpha', 'projects/alpha/members', 'compliance/alpha'].includes(object) || /^(instances|secrets|rgds|repositories)\/alpha\//.test(object)).toBe(true);
    }
  });
});

describe('objectMatch', () => {
  it.each([
    ['instances/alpha/dev/WebApp/shop', 'instances/alpha/*', true],
    ['instances/alpha/dev/WebApp/shop', 'instances/alpha/dev/*', true],
    ['instances/alpha/prod/WebApp/shop', 'instances/alpha/dev/*', false],
    ['instances/alpha/dev-1/WebApp/shop', 'instances/alpha/dev-*/WebApp/*', true],
    ['instances/alpha/dev/WebApp/shop', 'instances/alpha/dev/WebApp/shop', true],
    ['instances/alpha/dev/WebApp/shopx', 'instances/alpha/dev/WebApp/shop', false],
    ['instances/alpha/devXWebApp', 'instances/alpha/dev.WebApp', false],
    ['projects/alpha', 'projects/alpha', true],
    ['projects/alpha/roles', 'projects/alpha', false],
    ['instances/alpha/*', 'instances/alpha/*', true],
    ['instances/alpha/*', 'instances/alpha/dev/*', false],
    ['anything/at/all', '*', true],
  ])('%s vs %s → %s', (request, pattern, expected) => {
    expect(objectMatch(request, pattern)).toBe(expected);
  });
});

describe('the Casbin-line spelling of a role policy', () => {
  const owner = (policies: string[]) => compileProjectPolicies({ name: 'alpha', roles: [role('dev', policies)] });

  it('compiles a line naming the role being edited exactly as its triple', () => {
    const line = owner(['p, proj:alpha:dev, instances, get, *, allow', 'p, proj:alpha:dev, secrets, reveal, alpha/prod/*, deny']);
    const triple = owner(['instances/*, get, allow', 'secrets/prod/*, reveal, deny']);
    expect(line.errors).toEqual([]);
    expect(line.policies).toEqual(triple.policies);
  });

  it.each([
    ['p, proj:beta:dev, instances, get, *, allow', 'project "beta"'],
    ['p, proj:alpha:admin, instances, get, *, allow', 'role "admin"'],
    ['p, role:serveradmin, instances, get, *, allow', 'must be proj:alpha:dev'],
    ['p, proj:alpha:dev, instances, get, allow', '6 comma-separated parts'],
  ])('refuses %s, naming what is wrong', (policy, fragment) => {
    expect(() => validateRoles('alpha', [role('dev', [policy])])).toThrow(fragment);
  });
});

describe('role destinations', () => {
  const confined = (destinations: string[]) =>
    compileProjectPolicies({ name: 'alpha', roles: [{ ...role('dev', ['instances/*, *, allow', 'rgds/*, get, allow']), destinations }] });

  it('confine a role\'s namespaced lines to each destination and leave the others unscoped', () => {
    expect(confined(['dev', 'team-*']).policies).toEqual([
      ['proj:alpha:dev', 'projects/alpha', 'get', 'allow', '*'],
      ['proj:alpha:dev', 'instances/alpha/*', '*', 'allow', 'instances/alpha/dev'],
      ['proj:alpha:dev', 'instances/alpha/*', '*', 'allow', 'instances/alpha/team-*'],
      ['proj:alpha:dev', 'rgds/alpha/*', 'get', 'allow', '*'],
    ]);
  });

  it('a destination pattern stays within the namespace segment', () => {
    expect(scopeMatch('instances/alpha/dev/WebApp/a', 'instances/alpha/dev')).toBe(true);
    expect(scopeMatch('instances/alpha/development/WebApp/a', 'instances/alpha/dev')).toBe(false);
    expect(scopeMatch('instances/alpha/team-a/WebApp/a', 'instances/alpha/team-*')).toBe(true);
    expect(scopeMatch('instances/alpha/prod/Xdev/a', 'instances/alpha/*dev')).toBe(false);
    expect(scopeMatch('instances/alpha/*', 'instances/alpha/dev')).toBe(false);
    expect(scopeMatch('instances/alpha/*', 'instances/alpha/*')).toBe(true);
  });

  it('refuses a destination that is not a namespace pattern', () => {
    expect(() => validateRoles('alpha', [{ ...role('dev', []), destinations: ['Bad/ns'] }])).toThrow('destination "Bad/ns"');
  });
});
