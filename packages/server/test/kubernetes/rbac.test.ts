import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, createProject, createUser, type ApiAs, type TestUser } from '../support/api-as.js';
import { clusterModes, startPorticoServer, type PorticoServer } from '../support/cluster-modes.js';

/**
 * Project RBAC over HTTP, the same checks against the embedded cluster and against the Kubernetes adapter (fake
 * API server): visibility, 403 on project routes, bindings that apply on the next request, can-i following them.
 */
describe.each(clusterModes)('RBAC over HTTP (%s cluster)', (mode) => {
  let tp: PorticoServer;
  let admin: ApiAs;

  beforeAll(async () => {
    tp = await startPorticoServer({ mode });
    admin = apiAs(tp.url, tp.adminToken);
  });
  afterAll(async () => {
    await tp?.close();
  });

  const canI = async (user: ApiAs, resource: string, action: string, object: string) =>
    (await user.get(`/api/v1/account/can-i/${resource}/${action}/${object}`)).body?.value;

  it('an outsider sees no project and gets 403 on a project route', async () => {
    const project = await createProject(tp, 'closed');
    const outsider = await createUser(tp, 'outsider');

    expect((await outsider.get('/api/v1/projects')).body).toEqual({ items: [], totalCount: 0 });
    const get = await outsider.get(`/api/v1/projects/${project}`);
    expect([get.status, get.body.code]).toEqual([403, 'FORBIDDEN']);
    const bindings = await outsider.get(`/api/v1/projects/${project}/role-bindings`);
    expect(bindings.status).toBe(403);
    const bind = await outsider.post(`/api/v1/projects/${project}/roles/developer/users/${outsider.username}`);
    expect(bind.status).toBe(403);
    expect(await canI(outsider, 'instances', 'create', project)).toBe('no');
    expect((await outsider.get('/api/v1/account/can-i')).body.projects).toEqual({});
  });

  it('a user binding grants access on the next request; removing it takes it away on the next request', async () => {
    const project = await createProject(tp, 'team');
    const user = await createUser(tp, 'dev');

    const bound = await admin.post(`/api/v1/projects/${project}/roles/developer/users/${user.username}`);
    expect(bound.status).toBe(201);
    expect(bound.body).toEqual({ project, role: 'developer', type: 'user', subject: user.username });

    expect((await user.get(`/api/v1/projects/${project}`)).status).toBe(200);
    expect((await user.get('/api/v1/projects')).body.items.map((p: { name: string }) => p.name)).toEqual([project]);
    expect(await canI(user, 'instances', 'create', project)).toBe('yes');
    expect(await canI(user, 'projects', 'delete', project)).toBe('no');
    const summary = (await user.get('/api/v1/account/can-i')).body;
    expect(summary.projects[project]).toMatchObject({ role: 'developer', permissions: { 'instances:create': true } });
    expect((await user.get('/api/v1/account')).body).toMatchObject({ projects: [project], roles: { [project]: 'developer' } });

    expect((await admin.del(`/api/v1/projects/${project}/roles/developer/users/${user.username}`)).status).toBe(204);
    expect((await user.get(`/api/v1/projects/${project}`)).status).toBe(403);
    expect((await user.get('/api/v1/projects')).body).toEqual({ items: [], totalCount: 0 });
    expect(await canI(user, 'instances', 'create', project)).toBe('no');
  });

  it('a role change is an unbind plus a bind, and the viewer role cannot create instances', async () => {
    const project = await createProject(tp, 'roles');
    const user = await createUser(tp, 'mover');
    await admin.post(`/api/v1/projects/${project}/roles/developer/users/${user.username}`);
    expect(await canI(user, 'instances', 'create', project)).toBe('yes');

    await admin.del(`/api/v1/projects/${project}/roles/developer/users/${user.username}`);
    await admin.post(`/api/v1/projects/${project}/roles/viewer/users/${user.username}`);
    expect(await canI(user, 'instances', 'create', project)).toBe('no');
    expect(await canI(user, 'instances', 'get', project)).toBe('yes');
    const create = await user.post(`/api/v1/namespaces/dev/instances/WebApp`, { name: 'nope', project, values: { image: 'nginx' } });
    expect([create.status, create.body.code]).toEqual([403, 'FORBIDDEN']);
  });

  it('a group binding grants access to its members until it is removed, unless a user binding still does', async () => {
    const project = await createProject(tp, 'groups');
    const group = `ops-${project}`;
    const member: TestUser = await createUser(tp, 'op', [group]);
    const alsoBound: TestUser = await createUser(tp, 'op2', [group]);

    await admin.post(`/api/v1/projects/${project}/roles/developer/groups/${group}`);
    await admin.post(`/api/v1/projects/${project}/roles/viewer/users/${alsoBound.username}`);
    expect((await member.get(`/api/v1/projects/${project}`)).status).toBe(200);
    const bindings = (await admin.get(`/api/v1/projects/${project}/role-bindings`)).body.bindings;
    expect(bindings).toEqual(
      expect.arrayContaining([
        { role: 'developer', type: 'group', subject: group },
        { role: 'viewer', type: 'user', subject: alsoBound.username },
      ]),
    );

    expect((await admin.del(`/api/v1/projects/${project}/roles/developer/groups/${group}`)).status).toBe(204);
    expect((await member.get(`/api/v1/projects/${project}`)).status).toBe(403);
    expect((await alsoBound.get(`/api/v1/projects/${project}`)).status).toBe(200);
    expect(await canI(alsoBound, 'instances', 'create', project)).toBe('no');
  });

  it('instances follow the bindings: a developer creates one kro makes ACTIVE, an outsider sees nothing of it', async () => {
    const project = await createProject(tp, 'apps', ['dev']);
    const developer = await createUser(tp, 'builder');
    const outsider = await createUser(tp, 'stranger');
    await admin.post(`/api/v1/projects/${project}/roles/developer/users/${developer.username}`);

    const created = await developer.post('/api/v1/namespaces/dev/instances/WebApp', { name: `shop-${project}`, project, values: { image: 'nginx:1.27' } });
    expect(created.status).toBe(201);
    const path = `/api/v1/namespaces/dev/instances/WebApp/${created.body.name}`;
    const deadline = Date.now() + 10_000;
    let health = created.body.health;
    while (health !== 'Healthy' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      health = (await developer.get(path)).body.health;
    }
    expect(health).toBe('Healthy');
    expect((await developer.get(path)).body.status.state).toBe('ACTIVE');

    expect((await outsider.get(path)).status).toBe(404);
    expect((await outsider.get(`/api/v1/instances?project=${project}`)).body).toMatchObject({ items: [], totalCount: 0 });
    expect((await outsider.get('/api/v1/instances/count')).body).toEqual({ count: 0 });
  });
});
