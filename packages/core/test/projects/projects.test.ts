import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as api from '@portico/api';
import type { Actor } from '../../src/actor.js';
import { isPorticoError } from '../../src/errors.js';
import { resources } from '../../src/ports/cluster.js';
import { createMemoryKeyValue } from '../../src/adapters/memory-kv.js';
import { createEvents } from '../../src/events/index.js';
import { createLogger } from '../../src/logger.js';
import { createProjects, defaultRoles, projectAnnotations } from '../../src/projects/index.js';
import { validateRoles } from '../../src/rbac/index.js';
import type { ProjectsService } from '../../src/types.js';
import { namespace, startWorld, user, type World } from '../rbac/world.js';

let world: World;
let projects: ProjectsService;
let counter = 0;

const admin = user('admin');
const pat = user('pat');
const dev = user('dev', ['devs']);
const vera = user('vera');
const outsider = user('olga');
const actors: Record<string, Actor> = { admin, 'platform-admin': pat, developer: dev, viewer: vera, outsider };

/** The default roles with pat, the devs group and vera bound. */
const boundRoles = (): api.ProjectRole[] =>
  defaultRoles().map((r) => ({
    ...r,
    users: r.name === 'platform-admin' ? ['pat'] : r.name === 'viewer' ? ['vera'] : [],
    groups: r.name === 'developer' ? ['devs'] : [],
  }));

const newProject = async (roles = boundRoles(), destinations: string[] = ['dev-*']) =>
  projects.create(admin, { name: `p-${++counter}`, description: 'test project', destinations: destinations.map((namespace) => ({ namespace })), roles });

/** 'ok' or the error code, so a table can hold both. */
async function outcome(fn: () => unknown): Promise<string> {
  try {
    await fn();
    return 'ok';
  } catch (error) {
    if (isPorticoError(error)) return error.code;
    throw error;
  }
}

async function failure(fn: () => unknown) {
  try {
    await fn();
  } catch (error) {
    if (isPorticoError(error)) return error;
    throw error;
  }
  throw new Error('expected a PorticoError');
}

beforeAll(async () => {
  world = await startWorld();
  // Projects alone: a cluster whose catalog serves no kind, so no project has instances (cascade.test.ts has them).
  const noInstances = {
    index: { inProject: () => [], get: () => undefined, onChange: () => ({ close() {} }) },
    service: { delete: () => Promise.reject(new Error('no instances here')) },
  };
  const events = createEvents({ kv: createMemoryKeyValue(), logger: createLogger('silent') });
  projects = createProjects({
    cluster: world.cluster, projects: world.informer, authz: world.authz, validateRoles, config: { kubernetes: { namespace, inCluster: false } },
    instances: noInstances, catalog: { entry: () => undefined }, events,
  });
  for (const name of ['dev-a', 'dev-b', 'team-prod', 'staging', 'other', 'kube-system']) {
    await world.cluster.create(resources.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
});
afterAll(() => world.close());

describe('permission matrix', () => {
  type Op = (actor: Actor, p: api.Project) => unknown;
  const ops: Record<string, Op> = {
    get: (a, p) => projects.get(a, p.name),
    'role-bindings': (a, p) => projects.roleBindings(a, p.name),
    namespaces: (a, p) => projects.namespaces(a, p.name),
    'update description': (a, p) => projects.update(a, p.name, { description: 'changed', resourceVersion: p.resourceVersion }),
    'update policies': (a, p) =>
      projects.update(a, p.name, {
        roles: p.roles.map((r) => (r.name === 'viewer' ? { ...r, policies: [...r.policies, 'secrets/*, get, allow'] } : r)),
        resourceVersion: p.resourceVersion,
      }),
    'update users only': (a, p) =>
      projects.update(a, p.name, {
        roles: p.roles.map((r) => (r.name === 'viewer' ? { ...r, users: [...r.users, 'newbie'] } : r)),
        resourceVersion: p.resourceVersion,
      }),
    bind: (a, p) => projects.bind(a, p.name, 'viewer', 'user', 'newbie'),
    unbind: (a, p) => projects.unbind(a, p.name, 'viewer', 'user', 'vera'),
    delete: (a, p) => projects.delete(a, p.name),
  };
  // admin, platform-admin, developer, viewer, outsider
  const expected: Record<string, string[]> = {
    get: ['ok', 'ok', 'ok', 'ok', 'NOT_FOUND'],
    'role-bindings': ['ok', 'ok', 'ok', 'ok', 'NOT_FOUND'],
    namespaces: ['ok', 'ok', 'ok', 'ok', 'NOT_FOUND'],
    'update description': ['ok', 'FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN', 'NOT_FOUND'],
    'update policies': ['ok', 'FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN', 'NOT_FOUND'],
    'update users only': ['ok', 'ok', 'FORBIDDEN', 'FORBIDDEN', 'NOT_FOUND'],
    bind: ['ok', 'ok', 'FORBIDDEN', 'FORBIDDEN', 'NOT_FOUND'],
    unbind: ['ok', 'ok', 'FORBIDDEN', 'FORBIDDEN', 'NOT_FOUND'],
    delete: ['ok', 'FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN', 'NOT_FOUND'],
  };
  const cases = Object.entries(expected).flatMap(([op, results]) =>
    Object.keys(actors).map((who, i) => [op, who, results[i]] as const),
  );

  it.each(cases)('%s by %s → %s', async (op, who, result) => {
    const project = await newProject();
    expect(await outcome(() => ops[op](actors[who], project))).toBe(result);
  });

  it('only a Server Admin creates projects', async () => {
    for (const who of ['platform-admin', 'developer', 'viewer', 'outsider']) {
      expect(await outcome(() => projects.create(actors[who], { name: `by-${who}`, description: '', destinations: [] }))).toBe('FORBIDDEN');
    }
    expect(await outcome(() => projects.create(admin, { name: 'by-admin', description: '', destinations: [] }))).toBe('ok');
  });
});

describe('create', () => {
  it('defaults roles to the templates, records the creator and is visible at once', async () => {
    const created = await projects.create(admin, { name: 'fresh', description: 'd', destinations: [{ namespace: 'dev-*' }] });
    expect(created).toMatchObject({ name: 'fresh', description: 'd', destinations: [{ namespace: 'dev-*' }], createdBy: 'admin' });
    expect(created.roles.map((r) => r.name)).toEqual(['platform-admin', 'developer', 'viewer']);
    expect(created.roles.every((r) => Array.isArray(r.users) && Array.isArray(r.groups))).toBe(true);
    expect(created.resourceVersion).toMatch(/^\d+$/);
    expect(created.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(projects.get(admin, 'fresh')).toEqual(created);
    const stored = await world.cluster.get(resources.project, 'fresh', namespace);
    expect(stored?.metadata.annotations?.[projectAnnotations.createdBy]).toBe('admin');
  });

  it('accepts bindings in the body; they are in force for the next request', async () => {
    const p = await newProject();
    expect(world.authz.can(vera, 'get', `projects/${p.name}`)).toBe(true);
    expect(projects.list(vera).items.map((i) => i.name)).toContain(p.name);
  });

  it('409 when the project exists', async () => {
    const p = await newProject();
    const error = await failure(() => projects.create(admin, { name: p.name, description: '', destinations: [] }));
    expect(error.code).toBe('CONFLICT');
  });

  it('400 naming the role and the policy when a policy is invalid; nothing is created', async () => {
    const roles = [{ name: 'ops', policies: ['instances/*, *, allow', 'projects/*, create, allow'], users: [], groups: [] }];
    const error = await failure(() => projects.create(admin, { name: 'bad-policy', description: '', destinations: [], roles }));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toContain('projects/*, create, allow');
    expect(error.message).toContain('ops');
    expect(error.details.errors).toEqual([{ role: 'ops', policy: 'projects/*, create, allow', message: expect.stringContaining('may grant only get and update of projects') }]);
    expect(error.details.fields).toHaveProperty(['roles.0.policies.1']);
    expect(await world.cluster.get(resources.project, 'bad-policy', namespace)).toBeUndefined();
  });

  it('400 on bad names, destinations and duplicate roles', async () => {
    const bad = [
      { name: 'Bad_Name', description: '', destinations: [] },
      { name: 'ok-name', description: '', destinations: [{ namespace: 'a*b' }] },
      { name: 'ok-name', description: '', destinations: [{ namespace: '../etc' }] },
      { name: 'ok-name', description: '', destinations: [], roles: [{ name: 'x', policies: [], users: [], groups: [] }, { name: 'x', policies: [], users: [], groups: [] }] },
      { name: 'ok-name', description: '', destinations: [], roles: [{ name: 'x', policies: [], users: ['a/b'], groups: [] }] },
    ];
    for (const input of bad) expect(await outcome(() => projects.create(admin, input as api.CreateProjectRequest))).toBe('VALIDATION_FAILED');
  });
});

describe('get and list', () => {
  it('404 for an absent project, for everyone, and for an existing project the caller may not see', async () => {
    const p = await newProject();
    for (const who of Object.values(actors)) expect(await outcome(() => projects.get(who, 'does-not-exist'))).toBe('NOT_FOUND');
    expect(await outcome(() => projects.get(outsider, p.name))).toBe('NOT_FOUND');
    expect(await outcome(() => projects.bind(outsider, p.name, 'viewer', 'user', 'x'))).toBe('NOT_FOUND');
    expect(await outcome(() => projects.bind(outsider, 'does-not-exist', 'viewer', 'user', 'x'))).toBe('NOT_FOUND');
    expect(await outcome(() => projects.namespaces(outsider, 'does-not-exist'))).toBe('NOT_FOUND');
  });

  it('lists only what the caller may see, sorted by name, with totalCount', async () => {
    const a = await newProject([{ name: 'viewer', policies: [], users: ['lister'], groups: [] }]);
    await newProject([]);
    const c = await newProject([{ name: 'viewer', policies: [], users: [], groups: ['listers'] }]);
    const list = projects.list(user('lister', ['listers']));
    expect(list).toEqual({ items: [projects.get(admin, a.name), projects.get(admin, c.name)].sort((x, y) => x.name.localeCompare(y.name)), totalCount: 2 });
    expect(projects.list(outsider)).toEqual({ items: [], totalCount: 0 });
    const all = projects.list(admin);
    expect(all.totalCount).toBe(all.items.length);
    expect(all.items.map((i) => i.name)).toEqual([...all.items.map((i) => i.name)].sort());
  });
});

describe('update', () => {
  it('409 on a stale resourceVersion', async () => {
    const p = await newProject();
    const updated = await projects.update(admin, p.name, { description: 'v2', resourceVersion: p.resourceVersion });
    expect(updated.description).toBe('v2');
    expect(updated.updatedAt).toBeTruthy();
    expect(await outcome(() => projects.update(admin, p.name, { description: 'v3', resourceVersion: p.resourceVersion }))).toBe('CONFLICT');
    expect(projects.get(admin, p.name).description).toBe('v2');
  });

  it('a policy change by a Server Admin is in force for the next request', async () => {
    const p = await newProject();
    expect(world.authz.can(vera, 'get', `secrets/${p.name}/dev-a/db`)).toBe(false);
    await projects.update(admin, p.name, {
      roles: p.roles.map((r) => (r.name === 'viewer' ? { ...r, policies: [...r.policies, 'secrets/*, get, allow'] } : r)),
      resourceVersion: p.resourceVersion,
    });
    expect(world.authz.can(vera, 'get', `secrets/${p.name}/dev-a/db`)).toBe(true);
  });

  it('a platform-admin may add and remove members through PUT but not touch policies', async () => {
    const p = await newProject();
    const moved = p.roles.map((r) =>
      r.name === 'viewer' ? { ...r, users: [] } : r.name === 'developer' ? { ...r, users: ['vera'] } : r,
    );
    const updated = await projects.update(pat, p.name, { roles: moved, resourceVersion: p.resourceVersion });
    expect(world.authz.rolesIn(vera, p.name)).toEqual(['developer']);
    const escalate = updated.roles.map((r) => (r.name === 'developer' ? { ...r, policies: ['secrets/*, *, allow'] } : r));
    const error = await failure(() => projects.update(pat, p.name, { roles: escalate, resourceVersion: updated.resourceVersion }));
    expect(error.code).toBe('FORBIDDEN');
    expect(error.details).toEqual({ action: 'update', object: `projects/${p.name}/roles` });
    const addRole = [...updated.roles, { name: 'extra', policies: [], users: [], groups: [] }];
    expect(await outcome(() => projects.update(pat, p.name, { roles: addRole, resourceVersion: updated.resourceVersion }))).toBe('FORBIDDEN');
  });

  it('400 naming role and policy for an invalid policy in an update', async () => {
    const p = await newProject();
    const roles = p.roles.map((r) => (r.name === 'developer' ? { ...r, policies: ['instances/*, deploy, allow'] } : r));
    const error = await failure(() => projects.update(admin, p.name, { roles, resourceVersion: p.resourceVersion }));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details.errors).toEqual([{ role: 'developer', policy: 'instances/*, deploy, allow', message: expect.stringContaining('unknown action') }]);
  });
});

describe('delete', () => {
  it('removes the project and every grant it made', async () => {
    const p = await newProject();
    await projects.delete(admin, p.name);
    expect(await outcome(() => projects.get(admin, p.name))).toBe('NOT_FOUND');
    expect(world.authz.can(vera, 'get', `projects/${p.name}`)).toBe(false);
    expect(world.authz.memberProjects(vera)).not.toContain(p.name);
  });
});

describe('namespaces', () => {
  it('expands *, prefix*, *suffix and exact destinations into real namespaces, never patterns', async () => {
    const p = await newProject(boundRoles(), ['dev-*', '*-prod', 'staging', 'missing', 'dev-a']);
    expect(await projects.namespaces(vera, p.name)).toEqual({ namespaces: ['dev-a', 'dev-b', 'staging', 'team-prod'], count: 4 });
    const all = await newProject(boundRoles(), ['*']);
    const listed = await projects.namespaces(vera, all.name);
    expect(listed.namespaces).toEqual(expect.arrayContaining(['dev-a', 'dev-b', 'kube-system', 'other', 'staging', 'team-prod']));
    expect(listed.namespaces).not.toContain('*');
    const none = await newProject(boundRoles(), []);
    expect(await projects.namespaces(vera, none.name)).toEqual({ namespaces: [], count: 0 });
  });
});

describe('bindings', () => {
  it('bind is idempotent, takes effect on the next request, and shows in role-bindings', async () => {
    const p = await newProject();
    const newbie = user('newbie');
    expect(world.authz.can(newbie, 'get', `instances/${p.name}/dev-a/App/x`)).toBe(false);
    const binding = await projects.bind(pat, p.name, 'viewer', 'user', 'newbie');
    expect(binding).toEqual({ project: p.name, role: 'viewer', type: 'user', subject: 'newbie' });
    expect(world.authz.can(newbie, 'get', `instances/${p.name}/dev-a/App/x`)).toBe(true);
    const rv = projects.get(admin, p.name).resourceVersion;
    expect(await projects.bind(pat, p.name, 'viewer', 'user', 'newbie')).toEqual(binding);
    expect(projects.get(admin, p.name).resourceVersion).toBe(rv);
    expect(projects.roleBindings(newbie, p.name)).toEqual({
      project: p.name,
      bindings: [
        { role: 'platform-admin', type: 'user', subject: 'pat' },
        { role: 'developer', type: 'group', subject: 'devs' },
        { role: 'viewer', type: 'user', subject: 'vera' },
        { role: 'viewer', type: 'user', subject: 'newbie' },
      ],
    });
  });

  it("a member's project list is the same object between changes and follows every bind, unbind, edit and delete", async () => {
    const p = await newProject();
    const nadia = user('nadia', ['nadia-team']);
    const names = () => projects.list(nadia).items.map((i) => i.name);
    expect(names()).not.toContain(p.name);
    expect(projects.list(nadia)).toBe(projects.list(nadia)); // kept between changes
    await projects.bind(pat, p.name, 'viewer', 'user', 'nadia');
    expect(names()).toContain(p.name);
    await projects.update(admin, p.name, { description: 'edited', resourceVersion: projects.get(admin, p.name).resourceVersion });
    expect(projects.list(nadia).items.find((i) => i.name === p.name)?.description).toBe('edited');
    await projects.unbind(pat, p.name, 'viewer', 'user', 'nadia');
    expect(names()).not.toContain(p.name);
    await projects.bind(pat, p.name, 'viewer', 'group', 'nadia-team');
    expect(names()).toContain(p.name);
    // Same subjects, same list; another group set is another caller.
    expect(projects.list(user('nadia', ['nadia-team'])).items.map((i) => i.name)).toContain(p.name);
    expect(projects.list(user('nadia', [])).items.map((i) => i.name)).not.toContain(p.name);
    await projects.delete(admin, p.name);
    expect(names()).not.toContain(p.name);
  });

  it('a role change is unbind + bind, effective on the next request', async () => {
    const p = await newProject();
    await projects.unbind(pat, p.name, 'viewer', 'user', 'vera');
    await projects.bind(pat, p.name, 'developer', 'user', 'vera');
    expect(world.authz.rolesIn(vera, p.name)).toEqual(['developer']);
    expect(world.authz.can(vera, 'create', `instances/${p.name}/dev-a/App/x`)).toBe(true);
  });

  it('unbinding a group revokes access unless a user binding or another group still grants it', async () => {
    const p = await newProject([{ name: 'viewer', policies: ['instances/*, get, allow'], users: [], groups: [] }, ...boundRoles().filter((r) => r.name === 'platform-admin')]);
    const sam = user('sam', ['g1', 'g2']);
    const object = `instances/${p.name}/dev-a/App/x`;
    await projects.bind(pat, p.name, 'viewer', 'group', 'g1');
    await projects.bind(pat, p.name, 'viewer', 'group', 'g2');
    await projects.bind(pat, p.name, 'viewer', 'user', 'sam');
    await projects.unbind(pat, p.name, 'viewer', 'group', 'g1');
    expect(world.authz.can(sam, 'get', object)).toBe(true);
    await projects.unbind(pat, p.name, 'viewer', 'user', 'sam');
    expect(world.authz.can(sam, 'get', object)).toBe(true);
    await projects.unbind(pat, p.name, 'viewer', 'group', 'g2');
    expect(world.authz.can(sam, 'get', object)).toBe(false);
  });

  it('400 for a role the project does not define, 404 for a binding that does not exist, 400 for a bad subject', async () => {
    const p = await newProject();
    const error = await failure(() => projects.bind(pat, p.name, 'owner', 'user', 'x'));
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.details).toEqual({ role: 'owner' });
    expect(await outcome(() => projects.unbind(pat, p.name, 'viewer', 'user', 'nobody'))).toBe('NOT_FOUND');
    expect(await outcome(() => projects.unbind(pat, p.name, 'viewer', 'group', 'vera'))).toBe('NOT_FOUND');
    expect(await outcome(() => projects.bind(pat, p.name, 'viewer', 'user', 'a/b'))).toBe('BAD_REQUEST');
  });

  it('concurrent binds to one project all land (conflicts are retried)', async () => {
    const p = await newProject();
    const names = ['u1', 'u2', 'u3', 'u4', 'u5'];
    await Promise.all(names.map((n) => projects.bind(pat, p.name, 'developer', 'user', n)));
    const developer = projects.get(admin, p.name).roles.find((r) => r.name === 'developer');
    expect([...(developer?.users ?? [])].sort()).toEqual(names);
  });
});
