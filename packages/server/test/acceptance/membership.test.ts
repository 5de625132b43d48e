import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser, uniqueName, type ApiAs, type TestUser } from '../support/api-as.js';
import { clusterModes, useServer } from '../support/cluster-modes.js';

// Issue 5 / acceptance 2: the same RBAC behaviour holds on the embedded cluster and on the Kubernetes adapter.
describe.each(clusterModes)('%s cluster', (mode) => {
  /**
   * Issue 3, acceptance 1–3, over real HTTP: who sees a project, how user and group bindings grant and revoke
   * access on the very next request, and who may change bindings and role policies.
   */
  const { tp, admin } = useServer(mode);

  /** Every project route a member may read, and the bind route a non-admin member may not use. */
  async function projectRouteStatuses(user: TestUser, project: string) {
    return {
      get: (await user.get(`/api/v1/projects/${project}`)).status,
      roleBindings: (await user.get(`/api/v1/projects/${project}/role-bindings`)).status,
      namespaces: (await user.get(`/api/v1/projects/${project}/namespaces`)).status,
    };
  }

  const granted = { get: 200, roleBindings: 200, namespaces: 200 };
  // Issue 15: to a non-member the project is hidden, exactly like one that does not exist.
  const refused = { get: 404, roleBindings: 404, namespaces: 404 };

  const listedNames = async (user: ApiAs) => {
    const res = await user.get('/api/v1/projects');
    expect(res.status).toBe(200);
    expect(res.body.totalCount).toBe(res.body.items.length);
    return (res.body.items as { name: string }[]).map((p) => p.name);
  };

  describe('issue 3 / acceptance 1: a user binding grants access on the next request, and its removal revokes it', () => {
    it('no binding: an empty project list and 404 on every route of the project', async () => {
      const project = await createProject(tp, 'acc1');
      const user = await createUser(tp, 'nobody');

      const list = await user.get('/api/v1/projects');
      expect(list.status).toBe(200);
      expect(list.body).toEqual({ items: [], totalCount: 0 });

      expect(await projectRouteStatuses(user, project)).toEqual(refused);
      const bind = await user.post(`/api/v1/projects/${project}/roles/developer/users/${user.username}`);
      expect(bind.status).toBe(404);
      expect(bind.body.code).toBe('NOT_FOUND');
      // Nothing was written by the refused bind.
      expect((await admin.get(`/api/v1/projects/${project}/role-bindings`)).body.bindings).toEqual([]);
      // Exactly what a project that does not exist answers.
      expect((await user.get(`/api/v1/projects/${uniqueName('missing')}`)).status).toBe(404);
    });

    it('bind → the very next request succeeds; unbind → 404 again', async () => {
      const project = await createProject(tp, 'acc1');
      const user = await createUser(tp, 'dev');
      expect((await user.get(`/api/v1/projects/${project}`)).status).toBe(404);

      const bound = await admin.post(`/api/v1/projects/${project}/roles/developer/users/${user.username}`);
      expect(bound.status).toBe(201);
      expect(bound.body).toEqual({ project, role: 'developer', type: 'user', subject: user.username });

      const got = await user.get(`/api/v1/projects/${project}`);
      expect(got.status).toBe(200);
      expect(got.body.name).toBe(project);
      expect(await projectRouteStatuses(user, project)).toEqual(granted);
      expect(await listedNames(user)).toEqual([project]);
      expect((await user.get(`/api/v1/projects/${project}/namespaces`)).body).toEqual({ namespaces: ['dev'], count: 1 });
      expect((await user.get(`/api/v1/projects/${project}/role-bindings`)).body).toEqual({
        project,
        bindings: [{ role: 'developer', type: 'user', subject: user.username }],
      });
      // The caller's own view follows too: the account and the permission summary name the project and role.
      expect((await user.get('/api/v1/account')).body).toMatchObject({ projects: [project], roles: { [project]: 'developer' } });
      expect((await user.get('/api/v1/account/can-i')).body.projects[project]).toMatchObject({ role: 'developer', permissions: { 'instances:create': true } });

      expect((await admin.del(`/api/v1/projects/${project}/roles/developer/users/${user.username}`)).status).toBe(204);
      expect((await user.get(`/api/v1/projects/${project}`)).status).toBe(404);
      expect(await projectRouteStatuses(user, project)).toEqual(refused);
      expect(await user.get('/api/v1/projects')).toMatchObject({ status: 200, body: { items: [], totalCount: 0 } });
      expect((await user.get('/api/v1/account/can-i')).body.projects).toEqual({});
    });

    it('a role change (unbind + bind) applies on the next request', async () => {
      const project = await createProject(tp, 'acc1');
      const user = await createUser(tp, 'mover');
      const canI = async (resource: string, action: string) => (await user.get(`/api/v1/account/can-i/${resource}/${action}/${project}`)).body.value;

      expect((await admin.post(`/api/v1/projects/${project}/roles/viewer/users/${user.username}`)).status).toBe(201);
      expect(await canI('instances', 'create')).toBe('no');
      expect((await admin.del(`/api/v1/projects/${project}/roles/viewer/users/${user.username}`)).status).toBe(204);
      expect((await admin.post(`/api/v1/projects/${project}/roles/developer/users/${user.username}`)).status).toBe(201);
      expect(await canI('instances', 'create')).toBe('yes');
      expect((await user.get('/api/v1/account')).body.roles).toEqual({ [project]: 'developer' });
    });
  });

  describe('issue 3 / bindings under concurrency', () => {
    // A script or a Terraform provider (parallelism 10 by default) binds many users at once. The binds do not
    // conflict with each other, so none may fail with 409 and none may be lost.
    it('20 concurrent binds and then 20 concurrent unbinds of different users all succeed, nothing lost', async () => {
      const project = await createProject(tp, 'busy');
      const subjects = Array.from({ length: 20 }, (_, i) => `member-${i}`);
      const bound = await Promise.all(subjects.map((s) => admin.post(`/api/v1/projects/${project}/roles/viewer/users/${s}`)));
      expect(bound.map((r) => r.status)).toEqual(subjects.map(() => 201));
      const after = (await admin.get(`/api/v1/projects/${project}/role-bindings`)).body.bindings as { subject: string }[];
      expect(after.map((b) => b.subject).sort()).toEqual([...subjects].sort());

      const unbound = await Promise.all(subjects.map((s) => admin.del(`/api/v1/projects/${project}/roles/viewer/users/${s}`)));
      expect(unbound.map((r) => r.status)).toEqual(subjects.map(() => 204));
      expect((await admin.get(`/api/v1/projects/${project}/role-bindings`)).body.bindings).toEqual([]);
    });
  });

  describe('issue 3 / acceptance 2: removing a group binding revokes access unless something else still grants it', () => {
    it('group binding only: bind the group → access; remove it → 404', async () => {
      const project = await createProject(tp, 'acc2');
      const member = await createUser(tp, 'grp', ['team-x']);
      const outsider = await createUser(tp, 'other', ['team-z']);
      expect((await member.get(`/api/v1/projects/${project}`)).status).toBe(404);

      const bound = await admin.post(`/api/v1/projects/${project}/roles/developer/groups/team-x`);
      expect(bound.status).toBe(201);
      expect(bound.body).toEqual({ project, role: 'developer', type: 'group', subject: 'team-x' });
      expect(await projectRouteStatuses(member, project)).toEqual(granted);
      expect(await listedNames(member)).toContain(project);
      // Only members of the group gain access.
      expect((await outsider.get(`/api/v1/projects/${project}`)).status).toBe(404);

      expect((await admin.del(`/api/v1/projects/${project}/roles/developer/groups/team-x`)).status).toBe(204);
      expect(await projectRouteStatuses(member, project)).toEqual(refused);
      expect(await listedNames(member)).not.toContain(project);
    });

    it('a user binding still grants access after the group binding is removed', async () => {
      const project = await createProject(tp, 'acc2');
      const member = await createUser(tp, 'grp', ['team-x']);
      expect((await admin.post(`/api/v1/projects/${project}/roles/developer/groups/team-x`)).status).toBe(201);
      expect((await admin.post(`/api/v1/projects/${project}/roles/developer/users/${member.username}`)).status).toBe(201);

      expect((await admin.del(`/api/v1/projects/${project}/roles/developer/groups/team-x`)).status).toBe(204);
      expect(await projectRouteStatuses(member, project)).toEqual(granted);
      expect((await member.get(`/api/v1/account/can-i/instances/create/${project}`)).body).toEqual({ value: 'yes' });

      expect((await admin.del(`/api/v1/projects/${project}/roles/developer/users/${member.username}`)).status).toBe(204);
      expect(await projectRouteStatuses(member, project)).toEqual(refused);
    });

    it('another bound group still grants access after one group binding is removed', async () => {
      const project = await createProject(tp, 'acc2');
      const member = await createUser(tp, 'grp', ['team-x', 'team-y']);
      expect((await admin.post(`/api/v1/projects/${project}/roles/developer/groups/team-x`)).status).toBe(201);
      expect((await admin.post(`/api/v1/projects/${project}/roles/viewer/groups/team-y`)).status).toBe(201);

      expect((await admin.del(`/api/v1/projects/${project}/roles/developer/groups/team-x`)).status).toBe(204);
      expect(await projectRouteStatuses(member, project)).toEqual(granted);
      // What remains is what team-y's role permits: viewer reads, does not create.
      expect((await member.get(`/api/v1/account/can-i/instances/get/${project}`)).body).toEqual({ value: 'yes' });
      expect((await member.get(`/api/v1/account/can-i/instances/create/${project}`)).body).toEqual({ value: 'no' });

      expect((await admin.del(`/api/v1/projects/${project}/roles/viewer/groups/team-y`)).status).toBe(204);
      expect(await projectRouteStatuses(member, project)).toEqual(refused);
    });
  });

  describe('issue 3 / acceptance 3: who may change bindings and role policies', () => {
    let project: string;
    let platformAdmin: TestUser;
    let developer: TestUser;
    let viewer: TestUser;

    beforeAll(async () => {
      project = await createProject(tp, 'acc3');
      platformAdmin = await createUser(tp, 'padmin');
      developer = await createUser(tp, 'dev');
      viewer = await createUser(tp, 'view');
      for (const [role, user] of [['platform-admin', platformAdmin], ['developer', developer], ['viewer', viewer]] as const) {
        expect((await admin.post(`/api/v1/projects/${project}/roles/${role}/users/${user.username}`)).status).toBe(201);
      }
    });

    /** The project as the admin sees it, with one role's policies replaced. */
    async function withPolicies(role: string, policies: string[]) {
      const current = (await admin.get(`/api/v1/projects/${project}`)).body;
      return {
        resourceVersion: current.resourceVersion as string,
        roles: (current.roles as { name: string; policies: string[] }[]).map((r) => (r.name === role ? { ...r, policies } : r)),
      };
    }

    it('a Platform Admin adds and removes user and group bindings', async () => {
      const newcomer = await createUser(tp, 'new');
      const added = await platformAdmin.post(`/api/v1/projects/${project}/roles/viewer/users/${newcomer.username}`);
      expect(added.status).toBe(201);
      expect((await newcomer.get(`/api/v1/projects/${project}`)).status).toBe(200);
      expect((await platformAdmin.post(`/api/v1/projects/${project}/roles/viewer/groups/auditors`)).status).toBe(201);

      expect((await platformAdmin.del(`/api/v1/projects/${project}/roles/viewer/users/${newcomer.username}`)).status).toBe(204);
      expect((await newcomer.get(`/api/v1/projects/${project}`)).status).toBe(404);
      expect((await platformAdmin.del(`/api/v1/projects/${project}/roles/viewer/groups/auditors`)).status).toBe(204);
    });

    it('a Platform Admin gets 403 changing role policies with PUT, and nothing changes', async () => {
      const before = (await admin.get(`/api/v1/projects/${project}`)).body;
      const put = await platformAdmin.put(`/api/v1/projects/${project}`, await withPolicies('viewer', ['instances/*, *, allow']));
      expect(put.status).toBe(403);
      expect(put.body.code).toBe('FORBIDDEN');
      const after = (await admin.get(`/api/v1/projects/${project}`)).body;
      expect(after.roles).toEqual(before.roles);
      expect(after.resourceVersion).toBe(before.resourceVersion);
      expect((await viewer.get(`/api/v1/account/can-i/instances/create/${project}`)).body.value).toBe('no');
    });

    it('a Platform Admin may PUT a change that only adds or removes members', async () => {
      const current = (await platformAdmin.get(`/api/v1/projects/${project}`)).body;
      const roles = (current.roles as { name: string; groups: string[] }[]).map((r) => (r.name === 'viewer' ? { ...r, groups: [...r.groups, 'readers'] } : r));
      const put = await platformAdmin.put(`/api/v1/projects/${project}`, { resourceVersion: current.resourceVersion, roles });
      expect(put.status).toBe(200);
      expect((await admin.get(`/api/v1/projects/${project}/role-bindings`)).body.bindings).toContainEqual({ role: 'viewer', type: 'group', subject: 'readers' });
      expect((await admin.del(`/api/v1/projects/${project}/roles/viewer/groups/readers`)).status).toBe(204);
    });

    it('the Server Admin changes role policies with PUT, and the change applies on the next request', async () => {
      const put = await admin.put(`/api/v1/projects/${project}`, await withPolicies('viewer', ['instances/*, get, allow', 'instances/*, create, allow', 'rgds/*, get, allow']));
      expect(put.status).toBe(200);
      expect(put.body.roles.find((r: { name: string }) => r.name === 'viewer').policies).toContain('instances/*, create, allow');
      expect((await viewer.get(`/api/v1/account/can-i/instances/create/${project}`)).body.value).toBe('yes');

      const back = await admin.put(`/api/v1/projects/${project}`, await withPolicies('viewer', ['instances/*, get, allow', 'rgds/*, get, allow']));
      expect(back.status).toBe(200);
      expect((await viewer.get(`/api/v1/account/can-i/instances/create/${project}`)).body.value).toBe('no');
    });

    it('a viewer and a developer get 403 adding or removing bindings', async () => {
      for (const user of [viewer, developer]) {
        const add = await user.post(`/api/v1/projects/${project}/roles/platform-admin/users/${user.username}`);
        expect(add.status).toBe(403);
        expect((await user.post(`/api/v1/projects/${project}/roles/viewer/groups/sneaky`)).status).toBe(403);
        expect((await user.del(`/api/v1/projects/${project}/roles/platform-admin/users/${platformAdmin.username}`)).status).toBe(403);
      }
      // Still exactly the three bindings made by the admin.
      const bindings = (await admin.get(`/api/v1/projects/${project}/role-bindings`)).body.bindings;
      expect(bindings).toEqual([
        { role: 'platform-admin', type: 'user', subject: platformAdmin.username },
        { role: 'developer', type: 'user', subject: developer.username },
        { role: 'viewer', type: 'user', subject: viewer.username },
      ]);
    });

    it('every project member (platform admin, developer, viewer) lists the bindings', async () => {
      const expected = (await admin.get(`/api/v1/projects/${project}/role-bindings`)).body;
      expect(expected.bindings).toHaveLength(3);
      for (const user of [platformAdmin, developer, viewer]) {
        const res = await user.get(`/api/v1/projects/${project}/role-bindings`);
        expect(res.status).toBe(200);
        expect(res.body).toEqual(expected);
      }
    });
  });
});
