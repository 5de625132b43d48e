import { beforeAll, describe, expect, it } from 'vitest';
import { createUser, uniqueName, type ApiAs, type TestUser } from '../support/api-as.js';
import { clusterModes, useServer } from '../support/cluster-modes.js';

// Issue 5 / acceptance 2: the same RBAC behaviour holds on the embedded cluster and on the Kubernetes adapter.
describe.each(clusterModes)('%s cluster', (mode) => {
  /**
   * Issue 3, catalog visibility over real HTTP: `rgds/<category>/*` in a role limits the catalog to that category
   * (list, count, filters, get), and an RGD labelled for a project (`payment-gateway`, project `payments`) exists
   * only for that project's members.
   */
  type Rgd = { name: string; category: string; labels: Record<string, string> };
  type RgdList = { items: Rgd[]; totalCount: number };
  type Filters = { categories: string[]; tags: string[]; projects: string[] };

  const { tp, admin } = useServer(mode);

  const catalogOf = async (user: ApiAs, query = '') => {
    const list = await user.get<RgdList>(`/api/v1/rgds?pageSize=500${query}`);
    expect(list.status).toBe(200);
    expect(list.body.totalCount).toBe(list.body.items.length);
    const count = await user.get<{ count: number }>('/api/v1/rgds/count');
    const filters = await user.get<Filters>('/api/v1/rgds/filters');
    expect(count.status).toBe(200);
    expect(filters.status).toBe(200);
    return { names: list.body.items.map((r) => r.name), items: list.body.items, count: count.body.count, filters: filters.body };
  };

  async function bind(project: string, role: string, user: TestUser) {
    expect((await admin.post(`/api/v1/projects/${project}/roles/${role}/users/${user.username}`)).status).toBe(201);
  }

  describe('issue 3 / catalog: a member with rgds/databases/* only sees that category', () => {
    it('list, count, filters and get are limited to the databases category', async () => {
      const project = uniqueName('dba');
      const created = await admin.post('/api/v1/projects', {
        name: project,
        destinations: [{ namespace: 'dev' }],
        roles: [{ name: 'dba', policies: ['rgds/databases/*, get, allow', 'instances/*, get, allow'] }],
      });
      expect(created.status).toBe(201);
      const dba = await createUser(tp, 'dba');
      await bind(project, 'dba', dba);

      const everything = await catalogOf(admin);
      const databases = (await catalogOf(admin, '&category=databases')).names;
      expect(databases.length).toBeGreaterThan(0);
      expect(databases.length).toBeLessThan(everything.names.length);

      const seen = await catalogOf(dba);
      expect(seen.names).toEqual(databases);
      expect(seen.items.every((r) => r.category === 'databases')).toBe(true);
      expect(seen.count).toBe(databases.length);
      expect(seen.filters.categories).toEqual(['databases']);
      expect(seen.filters.projects).toEqual([]);
      // A filter for another category finds nothing, even though the admin sees entries there.
      expect((await catalogOf(dba, '&category=web')).names).toEqual([]);

      expect((await dba.get(`/api/v1/rgds/${databases[0]}`)).status).toBe(200);
      const web = await dba.get('/api/v1/rgds/web-app');
      expect(web.status).toBe(404);
      expect(web.body.code).toBe('NOT_FOUND');
    });

    it('a user in no project sees an empty catalog', async () => {
      const nobody = await createUser(tp, 'nobody');
      const seen = await catalogOf(nobody);
      expect(seen).toMatchObject({ names: [], count: 0, filters: { categories: [], tags: [], projects: [] } });
    });
  });

  describe('issue 3 / catalog: a project-labelled RGD is visible only to that project\'s members', () => {
    let outsider: TestUser;
    let member: TestUser;

    beforeAll(async () => {
      // Both are developers (rgds/*, get): the one in `default` sees the public catalog, the one in `payments` too.
      outsider = await createUser(tp, 'web-dev');
      member = await createUser(tp, 'pay-dev');
      await bind('default', 'developer', outsider);
      await bind('payments', 'developer', member);
      const labelled = (await admin.get<Rgd>('/api/v1/rgds/payment-gateway')).body;
      expect(labelled.labels['portico.dev/project']).toBe('payments');
    });

    it('a non-member gets 404 on get and never finds it in list, count or filters', async () => {
      expect((await outsider.get('/api/v1/rgds/payment-gateway')).status).toBe(404);
      const seen = await catalogOf(outsider);
      expect(seen.names.length).toBeGreaterThan(0);
      expect(seen.names).not.toContain('payment-gateway');
      expect(seen.count).toBe(seen.names.length);
      expect(seen.filters.projects).not.toContain('payments');
      expect((await catalogOf(outsider, '&search=payment')).names).toEqual([]);
    });

    it('a payments member sees it in get, list, count and filters', async () => {
      const detail = await member.get('/api/v1/rgds/payment-gateway');
      expect(detail.status).toBe(200);
      expect(detail.body.name).toBe('payment-gateway');
      const seen = await catalogOf(member);
      const publicOnly = await catalogOf(outsider);
      expect(seen.names).toContain('payment-gateway');
      expect([...seen.names].sort()).toEqual([...publicOnly.names, 'payment-gateway'].sort());
      expect(seen.count).toBe(publicOnly.count + 1);
      expect(seen.filters.projects).toEqual(['payments']);
      expect((await catalogOf(member, '&search=payment')).names).toEqual(['payment-gateway']);
    });

    it('membership changes apply on the next request: unbinding hides it again', async () => {
      const joiner = await createUser(tp, 'joiner');
      await bind('payments', 'viewer', joiner);
      expect((await joiner.get('/api/v1/rgds/payment-gateway')).status).toBe(200);
      expect((await admin.del(`/api/v1/projects/payments/roles/viewer/users/${joiner.username}`)).status).toBe(204);
      expect((await joiner.get('/api/v1/rgds/payment-gateway')).status).toBe(404);
      expect((await catalogOf(joiner)).names).toEqual([]);
    });
  });
});
