import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPorticoError } from '../../src/errors.js';
import { compileProjectPolicies, validateRoles } from '../../src/rbac/index.js';
import { role, startWorld, user, type World } from './world.js';

// Contract §11.8: role policies as clients in the field write them, project `alpha`, role `r`. Each row is the
// policy text and either the decisions it must produce for a user bound to the role (and nothing else), or the
// 400 it must get, with the reason. A stored policy never grants anything but what its text says.

type Decision = [action: string, object: string, allowed: boolean];
type Row = [title: string, policies: string[], expected: Decision[] | { refused: string }];

const line = (resource: string, action: string, object: string, effect = 'allow') => `p, proj:alpha:r, ${resource}, ${action}, ${object}, ${effect}`;
const web = (namespace: string, name: string, kind = 'WebApp') => `instances/alpha/${namespace}/${kind}/${name}`;

const rows: Row[] = [
  ['instances, *, */alpha/*: everything on the project\'s instances, nothing elsewhere', [line('instances', '*', '*/alpha/*')], [
    ['create', web('dev', 'a'), true], ['delete', web('prod', 'b'), true], ['get', 'instances/alpha/*', true],
    ['create', 'instances/beta/dev/WebApp/a', false], ['get', 'projects/alpha/roles', false],
  ]],
  ['instances, get, alpha/*: reads the project\'s instances, creates none', [line('instances', 'get', 'alpha/*')], [
    ['get', web('dev', 'a'), true], ['get', 'instances/alpha/*', true], ['create', web('dev', 'a'), false], ['get', 'instances/beta/dev/WebApp/a', false],
  ]],
  ['instances, list, alpha: the whole project, list only', [line('instances', 'list', 'alpha')], [
    ['list', 'instances/alpha/*', true], ['get', web('dev', 'a'), false],
  ]],
  ['instances, get, */alpha/web: instances called web, any namespace and kind', [line('instances', 'get', '*/alpha/web')], [
    ['get', web('dev', 'web'), true], ['get', web('prod', 'web', 'Database'), true], ['get', web('dev', 'web-2'), false],
    ['get', 'instances/alpha/*', false], ['get', 'instances/beta/dev/WebApp/web', false],
  ]],
  ['instances, delete, alpha/dev: trailing parts left out mean any', [line('instances', 'delete', 'alpha/dev')], [
    ['delete', web('dev', 'a'), true], ['delete', web('development', 'a'), false], ['delete', web('prod', 'a'), false],
  ]],
  ['instances, update, alpha/dev/WebApp: one kind in one namespace', [line('instances', 'update', 'alpha/dev/WebApp')], [
    ['update', web('dev', 'a'), true], ['update', web('dev', 'a', 'Database'), false],
  ]],
  ['instances, *, *: a project role\'s * is its project', [line('instances', '*', '*')], [
    ['create', web('dev', 'a'), true], ['create', 'instances/beta/dev/WebApp/a', false],
  ]],
  ['a deny line beats an allow line, in either spelling', ['instances/*, *, allow', line('instances', 'delete', 'alpha/prod/*', 'deny')], [
    ['delete', web('dev', 'a'), true], ['delete', web('prod', 'a'), false], ['update', web('prod', 'a'), true],
  ]],
  ['secrets, get, alpha/dev/db: one secret, keys only', [line('secrets', 'get', 'alpha/dev/db')], [
    ['get', 'secrets/alpha/dev/db', true], ['get', 'secrets/alpha/dev/db2', false], ['reveal', 'secrets/alpha/dev/db', false],
  ]],
  ['secrets, reveal, alpha/*: reveal is its own action', [line('secrets', 'reveal', 'alpha/*')], [
    ['reveal', 'secrets/alpha/prod/x', true], ['delete', 'secrets/alpha/prod/x', false],
  ]],
  ['rgds, get, *: the catalog as the project sees it', [line('rgds', 'get', '*')], [
    ['get', 'rgds/alpha/_/webapp', true], ['list', 'rgds/alpha/*', false], ['get', 'rgds/beta/_/webapp', false],
  ]],
  ['rgds, list, *', [line('rgds', 'list', '*')], [['list', 'rgds/alpha/*', true]]],
  ['projects, get, alpha: the project itself', [line('projects', 'get', 'alpha')], [
    ['get', 'projects/alpha', true], ['update', 'projects/alpha', false], ['get', 'projects/beta', false],
  ]],
  ['projects, *, alpha: get and update of the project, never its deletion, roles or projects/*', [line('projects', '*', 'alpha')], [
    ['update', 'projects/alpha', true], ['get', 'projects/alpha', true], ['delete', 'projects/alpha', false],
    ['update', 'projects/alpha/roles', false], ['create', 'projects/*', false], ['create', 'projects/alpha/members', false],
  ]],
  ['repositories, get, alpha/*', [line('repositories', 'get', 'alpha/*')], [
    ['get', 'repositories/alpha/infra', true], ['create', 'repositories/alpha/infra', false], ['get', 'repositories/beta/infra', false],
  ]],
  ['repositories, *, alpha/*', [line('repositories', '*', 'alpha/*')], [['delete', 'repositories/alpha/infra', true]]],
  ['compliance, get, alpha/*: the project\'s compliance, not the global one', [line('compliance', 'get', 'alpha/*')], [
    ['get', 'compliance/alpha', true], ['get', 'compliance', false], ['get', 'compliance/beta', false],
  ]],
  ['members, *, alpha: bind and unbind, never change roles', [line('members', '*', 'alpha')], [
    ['create', 'projects/alpha/members', true], ['update', 'projects/alpha/roles', false],
  ]],
  ['applications: a resource Portico has no objects for', [line('applications', 'get', 'alpha/*')], { refused: 'unknown resource "applications"' }],
  ['clusters: a global resource, not a project\'s', [line('clusters', 'get', '*')], { refused: 'unknown resource "clusters"' }],
  ['roles: no project policy changes roles', [line('roles', 'update', 'alpha')], { refused: 'unknown resource "roles"' }],
  ['another project by its path', [line('instances', 'get', 'beta/*')], { refused: 'names project "beta"' }],
  ['another project in the any-category form', [line('instances', '*', '*/beta/*')], { refused: 'names project "beta"' }],
  ['every project', [line('instances', 'get', '*/*/*')], { refused: 'would reach other projects' }],
  ['projects matching a pattern', [line('instances', 'get', 'al*/*')], { refused: 'would reach other projects' }],
  ['projects, get, *: would name every project', [line('projects', 'get', '*')], { refused: 'would name every project' }],
  ['projects, delete: not grantable by a project policy', [line('projects', 'delete', 'alpha')], { refused: 'may grant only get and update of projects' }],
  ['the any-category form for secrets: no such object', [line('secrets', 'get', '*/alpha/db')], { refused: 'cannot be mapped' }],
  ['*/alpha without a name: no such object', [line('instances', 'get', '*/alpha')], { refused: 'cannot be mapped' }],
  ['too many parts', [line('instances', 'get', 'alpha/dev/WebApp/x/y')], { refused: 'instances objects have the form' }],
  ['a ".." segment', [line('instances', 'get', 'alpha/../beta')], { refused: 'must not contain ".."' }],
  ['a line for another project\'s role', ['p, proj:beta:r, instances, get, beta/*, allow'], { refused: 'names project "beta"' }],
  ['a line for another role', ['p, proj:alpha:admin, instances, get, alpha/*, allow'], { refused: 'names role "admin"' }],
  ['an unknown effect', [line('instances', 'get', 'alpha/*', 'permit')], { refused: 'unknown effect "permit"' }],
];

let world: World;
const rita = user('rita');

beforeAll(async () => {
  world = await startWorld();
  // Another project where rita holds nothing: its objects must stay out of reach whatever alpha's lines say.
  await world.put('beta', [role('r', ['instances/*, *, allow', 'projects/*, *, allow'], { users: ['someone-else'] })]);
});
afterAll(async () => {
  await world?.close();
});

describe('§11.8 role policies as written: each line and the decision it must produce', () => {
  it('has at least 20 lines', () => {
    expect(rows.length).toBeGreaterThanOrEqual(20);
  });

  it.each(rows)('%s', async (_title, policies, expected) => {
    if ('refused' in expected) {
      let error: unknown;
      try {
        validateRoles('alpha', [role('r', policies)]);
      } catch (e) {
        error = e;
      }
      expect(isPorticoError(error) && error.code).toBe('VALIDATION_FAILED');
      const message = (error as Error).message;
      expect(message).toContain('role "r"');
      expect(message).toContain(policies.at(-1));
      expect(message).toContain(expected.refused);
      // Loaded anyway (kubectl, GitOps), the refused line is dropped: nothing but the implicit project get.
      expect(compileProjectPolicies({ name: 'alpha', roles: [role('r', policies)] }).policies).toEqual([['proj:alpha:r', 'projects/alpha', 'get', 'allow', '*']]);
      return;
    }
    expect(() => validateRoles('alpha', [role('r', policies)])).not.toThrow();
    await world.put('alpha', [role('r', policies, { users: ['rita'] })]);
    const decided = expected.map(([action, object]) => [action, object, world.authz.can(rita, action, object)]);
    expect(decided).toEqual(expected);
  });
});
