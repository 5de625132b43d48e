import { resources } from '@portico/core';
import { describe, expect, it } from 'vitest';
import { createProject, createUser, uniqueName, type ApiAs } from '../support/api-as.js';
import { clusterModes, useServer } from '../support/cluster-modes.js';

// Issue 5 / acceptance 2: the same RBAC behaviour holds on the embedded cluster and on the Kubernetes adapter.
describe.each(clusterModes)('%s cluster', (mode) => {
  /**
   * Issue 3, acceptance 5, over real HTTP: a deny policy overrides an allow, and a change of the Project resource
   * made outside the API (as kubectl or a GitOps controller would make it) is enforced on the very next request.
   */
  const { tp, admin } = useServer(mode);

  const webApp = (project: string, name: string) => ({ name, project, values: { image: 'nginx:1.27' } });
  const instancesIn = (namespace: string) => `/api/v1/namespaces/${namespace}/instances/WebApp`;

  /** Creates a project with exactly these roles, as the admin. */
  async function projectWithRoles(roles: { name: string; policies: string[]; users?: string[]; groups?: string[] }[]) {
    const name = uniqueName('deny');
    const res = await admin.post('/api/v1/projects', { name, destinations: [{ namespace: 'dev' }], roles });
    expect(res.status).toBe(201);
    return name;
  }

  const canI = async (user: ApiAs, resource: string, action: string, project: string) => {
    const res = await user.get(`/api/v1/account/can-i/${resource}/${action}/${project}`);
    expect(res.status).toBe(200);
    return res.body.value as string;
  };

  describe('issue 3 / acceptance 5: a deny policy overrides an allow', () => {
    it('instances/*, * allow with instances/*, delete deny: can-i delete no, create yes, and the routes agree', async () => {
      const user = await createUser(tp, 'deployer');
      const project = await projectWithRoles([
        // `rgds/*, get`: creating an instance also needs its RGD to be visible to the caller (else 404 rgd).
        { name: 'deployer', policies: ['instances/*, *, allow', 'instances/*, delete, deny', 'rgds/*, get, allow'], users: [user.username] },
      ]);

      expect(await canI(user, 'instances', 'delete', project)).toBe('no');
      expect(await canI(user, 'instances', 'create', project)).toBe('yes');
      expect(await canI(user, 'instances', 'update', project)).toBe('yes');
      expect(await canI(user, 'instances', 'get', project)).toBe('yes');

      const name = uniqueName('app');
      const created = await user.post(instancesIn('dev'), webApp(project, name));
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name, namespace: 'dev', project, kind: 'WebApp', createdBy: user.username });
      const deleted = await user.del(`${instancesIn('dev')}/${name}`);
      expect(deleted.status).toBe(403);
      expect(deleted.body.code).toBe('FORBIDDEN');
      expect((await user.get(`${instancesIn('dev')}/${name}`)).status).toBe(200);
      // The Server Admin is not bound by project policies.
      expect((await admin.del(`${instancesIn('dev')}/${name}`)).status).toBe(200);
    });

    it('a deny on a group-bound role beats an allow on a user-bound role', async () => {
      const user = await createUser(tp, 'both', ['no-deleters']);
      const project = await projectWithRoles([
        { name: 'developer', policies: ['instances/*, *, allow', 'rgds/*, get, allow'], users: [user.username] },
        { name: 'careful', policies: ['instances/*, delete, deny'], groups: ['no-deleters'] },
      ]);
      expect(await canI(user, 'instances', 'create', project)).toBe('yes');
      expect(await canI(user, 'instances', 'delete', project)).toBe('no');

      // Removing the group binding lifts the deny on the next request.
      expect((await admin.del(`/api/v1/projects/${project}/roles/careful/groups/no-deleters`)).status).toBe(204);
      expect(await canI(user, 'instances', 'delete', project)).toBe('yes');
    });
  });

  describe('issue 3 / acceptance 5: a change of the Project resource outside the API applies on the next request', () => {
    const namespace = () => tp.portico.config.kubernetes.namespace;

    /** Writes spec.roles straight to the cluster, the way `kubectl apply`/`edit` would; no Portico API call. */
    async function patchRoles(project: string, change: (roles: RoleSpec[]) => RoleSpec[]) {
      const current = await tp.portico.cluster.get(resources.project, project, namespace());
      expect(current).toBeDefined();
      const roles = change((current!.spec as { roles: RoleSpec[] }).roles);
      await tp.portico.cluster.patch(resources.project, project, { spec: { roles } }, { namespace: namespace() });
    }
    type RoleSpec = { name: string; policies: string[]; users?: string[]; groups?: string[] };

    it('a user added to a role with kubectl gets access at once, and loses it at once when removed', async () => {
      const project = await createProject(tp, 'kubectl');
      const user = await createUser(tp, 'kube');
      expect((await user.get(`/api/v1/projects/${project}`)).status).toBe(404);

      await patchRoles(project, (roles) => roles.map((r) => (r.name === 'developer' ? { ...r, users: [...(r.users ?? []), user.username] } : r)));
      expect((await user.get(`/api/v1/projects/${project}`)).status).toBe(200);
      expect(await canI(user, 'instances', 'create', project)).toBe('yes');
      expect((await user.get('/api/v1/projects')).body.items.map((p: { name: string }) => p.name)).toEqual([project]);
      expect((await admin.get(`/api/v1/projects/${project}/role-bindings`)).body.bindings).toEqual([
        { role: 'developer', type: 'user', subject: user.username },
      ]);

      await patchRoles(project, (roles) => roles.map((r) => (r.name === 'developer' ? { ...r, users: [] } : r)));
      // No role left: the project is hidden again, can-i included.
      expect((await user.get(`/api/v1/projects/${project}`)).status).toBe(404);
      expect((await user.get(`/api/v1/account/can-i/instances/create/${project}`)).status).toBe(404);
      expect((await user.get('/api/v1/projects')).body).toEqual({ items: [], totalCount: 0 });
    });

    it('a policy granted and then revoked with kubectl is enforced on the next request', async () => {
      const project = await createProject(tp, 'kubectl');
      const user = await createUser(tp, 'kube');
      expect((await admin.post(`/api/v1/projects/${project}/roles/viewer/users/${user.username}`)).status).toBe(201);
      expect(await canI(user, 'instances', 'create', project)).toBe('no');
      const refused = await user.post(instancesIn('dev'), webApp(project, uniqueName('app')));
      expect(refused.status).toBe(403);

      const viewerPolicies = ['instances/*, get, allow', 'rgds/*, get, allow'];
      await patchRoles(project, (roles) => roles.map((r) => (r.name === 'viewer' ? { ...r, policies: [...viewerPolicies, 'instances/*, create, allow'] } : r)));
      expect(await canI(user, 'instances', 'create', project)).toBe('yes');
      const created = await user.post(instancesIn('dev'), webApp(project, uniqueName('app')));
      expect(created.status).toBe(201);

      await patchRoles(project, (roles) => roles.map((r) => (r.name === 'viewer' ? { ...r, policies: viewerPolicies } : r)));
      expect(await canI(user, 'instances', 'create', project)).toBe('no');
      expect((await user.post(instancesIn('dev'), webApp(project, uniqueName('app')))).status).toBe(403);
      // The instance created meanwhile stays visible to the viewer: only the create grant went away.
      expect((await user.get(`${instancesIn('dev')}/${created.body.name}`)).status).toBe(200);
    });

    it('a project deleted with kubectl is gone on the next request', async () => {
      const project = await createProject(tp, 'kubectl');
      const user = await createUser(tp, 'kube');
      expect((await admin.post(`/api/v1/projects/${project}/roles/developer/users/${user.username}`)).status).toBe(201);
      expect((await user.get(`/api/v1/projects/${project}`)).status).toBe(200);

      await tp.portico.cluster.delete(resources.project, project, namespace());
      expect((await user.get(`/api/v1/projects/${project}`)).status).toBe(404);
      expect((await user.get(`/api/v1/account/can-i/instances/create/${project}`)).status).toBe(404);
      expect((await user.get('/api/v1/projects')).body).toEqual({ items: [], totalCount: 0 });
    });
  });
});
