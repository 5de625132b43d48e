import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser, uniqueName, type ApiAs } from '../support/api-as.js';
import { clusterModes, useServer } from '../support/cluster-modes.js';

// Issue 5 / acceptance 2: the same RBAC behaviour holds on the embedded cluster and on the Kubernetes adapter.
describe.each(clusterModes)('%s cluster', (mode) => {
  /**
   * Issue 3, acceptance 4: can-i (Form B) answers what the routes actually allow. Each row asks
   * `GET /account/can-i/{resource}/{action}/{project}` and then performs the matching real request; "yes" must
   * mean the request succeeded, "no" that it was refused. A refused read of an instance or RGD the caller may
   * not even `get` is 404 (existence is not leaked), every other refusal is 403.
   */
  type Who = 'admin' | 'platformAdmin' | 'developer' | 'viewer' | 'outsider';
  type Answer = 'yes' | 'no';

  const { tp, admin } = useServer(mode);
  const as = {} as Record<Who, ApiAs>;
  /** The project the rows ask about, and one the admin's `projects delete` row may really delete. */
  let main: string;
  let doomed: string;
  const seed = 'seed';
  const kind = 'WebApp';
  const namespace = 'dev';

  let counter = 0;
  const next = (prefix: string) => `${prefix}-${++counter}`;

  const instancePath = (name: string) => `/api/v1/namespaces/${namespace}/instances/${kind}/${name}`;

  async function createInstance(by: ApiAs, name: string) {
    return by.post(`/api/v1/namespaces/${namespace}/instances/${kind}`, { name, project: main, values: { image: 'nginx:1.27' } });
  }

  async function adminCreateInstance(name: string) {
    const res = await createInstance(admin, name);
    if (res.status !== 201) throw new Error(`creating instance ${name} answered ${res.status}: ${JSON.stringify(res.body)}`);
  }

  /** A real request per (resource, action): its status, and the status it has when allowed. */
  interface Operation {
    success: number;
    /** The status of a refusal; 404 where a caller who may not `get` the object must not learn it exists. */
    refusedWith?: (who: Who) => number;
    perform(user: ApiAs): Promise<number>;
  }

  const hiddenFromNonMembers = (who: Who) => (who === 'outsider' ? 404 : 403);

  const operations: Record<string, Operation> = {
    'projects get': { success: 200, refusedWith: hiddenFromNonMembers, perform: async (u) => (await u.get(`/api/v1/projects/${main}`)).status },
    'projects update': {
      success: 200,
      refusedWith: hiddenFromNonMembers,
      async perform(u) {
        const { resourceVersion } = (await admin.get(`/api/v1/projects/${main}`)).body;
        return (await u.put(`/api/v1/projects/${main}`, { resourceVersion, description: next('described') })).status;
      },
    },
    'projects delete': { success: 204, refusedWith: hiddenFromNonMembers, perform: async (u) => (await u.del(`/api/v1/projects/${doomed}`)).status },
    'projects create': {
      success: 201,
      perform: async (u) => (await u.post('/api/v1/projects', { name: uniqueName('made'), destinations: [] })).status,
    },
    'members create': {
      success: 201,
      refusedWith: hiddenFromNonMembers,
      async perform(u) {
        const subject = next('added');
        const status = (await u.post(`/api/v1/projects/${main}/roles/viewer/users/${subject}`)).status;
        if (status === 201) expect((await admin.del(`/api/v1/projects/${main}/roles/viewer/users/${subject}`)).status).toBe(204);
        return status;
      },
    },
    'members delete': {
      success: 204,
      refusedWith: hiddenFromNonMembers,
      async perform(u) {
        const subject = next('removed');
        expect((await admin.post(`/api/v1/projects/${main}/roles/viewer/users/${subject}`)).status).toBe(201);
        const status = (await u.del(`/api/v1/projects/${main}/roles/viewer/users/${subject}`)).status;
        if (status !== 204) expect((await admin.del(`/api/v1/projects/${main}/roles/viewer/users/${subject}`)).status).toBe(204);
        return status;
      },
    },
    'roles update': {
      success: 200,
      refusedWith: hiddenFromNonMembers,
      async perform(u) {
        const current = (await admin.get(`/api/v1/projects/${main}`)).body;
        const roles = (current.roles as { name: string }[]).map((r) => (r.name === 'viewer' ? { ...r, description: next('reworded') } : r));
        return (await u.put(`/api/v1/projects/${main}`, { resourceVersion: current.resourceVersion, roles })).status;
      },
    },
    'instances create': { success: 201, perform: async (u) => (await createInstance(u, next('made'))).status },
    'instances get': { success: 200, refusedWith: hiddenFromNonMembers, perform: async (u) => (await u.get(instancePath(seed))).status },
    'instances update': {
      success: 200,
      refusedWith: hiddenFromNonMembers,
      perform: async (u) => (await u.call('PATCH', instancePath(seed), { spec: { replicas: 1 + (++counter % 5) } })).status,
    },
    'instances delete': {
      success: 200,
      refusedWith: hiddenFromNonMembers,
      async perform(u) {
        const victim = next('victim');
        await adminCreateInstance(victim);
        return (await u.del(instancePath(victim))).status;
      },
    },
    'rgds get': { success: 200, refusedWith: hiddenFromNonMembers, perform: async (u) => (await u.get('/api/v1/rgds/web-app')).status },
  };

  /** [who, resource, action, object, expected]; `main`/`doomed` stand for the projects made in beforeAll. */
  type Row = [Who, string, string, 'main' | 'doomed' | '*', Answer];

  /** Whose answer is yes for each question; everyone else's is no. Admin rows come last (its delete is real). */
  const yesFor: [string, string, 'main' | 'doomed' | '*', Who[]][] = [
    ['projects', 'get', 'main', ['admin', 'platformAdmin', 'developer', 'viewer']],
    ['projects', 'update', 'main', ['admin']],
    ['projects', 'create', '*', ['admin']],
    ['members', 'create', 'main', ['admin', 'platformAdmin']],
    ['members', 'delete', 'main', ['admin', 'platformAdmin']],
    ['roles', 'update', 'main', ['admin']],
    ['instances', 'create', 'main', ['admin', 'platformAdmin', 'developer']],
    ['instances', 'get', 'main', ['admin', 'platformAdmin', 'developer', 'viewer']],
    ['instances', 'update', 'main', ['admin', 'platformAdmin', 'developer']],
    ['instances', 'delete', 'main', ['admin', 'platformAdmin', 'developer']],
    ['rgds', 'get', 'main', ['admin', 'platformAdmin', 'developer', 'viewer']],
    ['projects', 'delete', 'doomed', ['admin']],
  ];
  const everyone: Who[] = ['outsider', 'viewer', 'developer', 'platformAdmin', 'admin'];
  const rows: Row[] = yesFor.flatMap(([resource, action, object, yes]) =>
    everyone.map((who): Row => [who, resource, action, object, yes.includes(who) ? 'yes' : 'no']),
  );

  beforeAll(async () => {
    as.admin = admin;
    main = await createProject(tp, 'cani', [namespace]);
    doomed = await createProject(tp, 'doomed', [namespace]);
    const roleOf = { platformAdmin: 'platform-admin', developer: 'developer', viewer: 'viewer' } as const;
    for (const who of ['platformAdmin', 'developer', 'viewer', 'outsider'] as const) {
      const user = await createUser(tp, who.toLowerCase());
      as[who] = user;
      if (who === 'outsider') continue;
      for (const project of [main, doomed]) {
        expect((await admin.post(`/api/v1/projects/${project}/roles/${roleOf[who]}/users/${user.username}`)).status).toBe(201);
      }
    }
    await adminCreateInstance(seed);
  });

  describe('issue 3 / acceptance 4: can-i answers match what the routes allow', () => {
    it('has at least 30 cases, with yes and no answers for every kind of user', () => {
      expect(rows.length).toBeGreaterThanOrEqual(30);
      for (const who of everyone.filter((w) => w !== 'outsider' && w !== 'admin')) {
        expect(rows.filter((r) => r[0] === who).map((r) => r[4])).toEqual(expect.arrayContaining(['yes', 'no']));
      }
    });

    it.each(rows)('%s: can-i %s %s on %s → %s, and the request agrees', async (who, resource, action, object, expected) => {
      const user = as[who];
      const target = object === 'main' ? main : object === 'doomed' ? doomed : '*';
      const asked = await user.get(`/api/v1/account/can-i/${resource}/${action}/${target}`);
      if (who === 'outsider' && target !== '*') {
        // Issue 15: a project the caller is not in is hidden from can-i too, like a missing one.
        expect([asked.status, asked.body.code]).toEqual([404, 'NOT_FOUND']);
      } else {
        expect(asked.status).toBe(200);
        expect(asked.body).toEqual({ value: expected });
      }

      const operation = operations[`${resource} ${action}`];
      const status = await operation.perform(user);
      if (expected === 'yes') expect(status).toBe(operation.success);
      else expect(status).toBe(operation.refusedWith?.(who) ?? 403);
    });

    it('the admin really deleted the doomed project, and can-i about it is now 404', async () => {
      expect((await admin.get(`/api/v1/projects/${doomed}`)).status).toBe(404);
      expect((await admin.get(`/api/v1/account/can-i/projects/get/${doomed}`)).status).toBe(404);
    });

    it('an unknown resource or action is 400 naming the parameter', async () => {
      for (const user of [admin, as.developer]) {
        const resource = await user.get(`/api/v1/account/can-i/widgets/get/${main}`);
        expect(resource.status).toBe(400);
        expect(JSON.stringify(resource.body)).toContain('resource');
        const action = await user.get(`/api/v1/account/can-i/instances/launch/${main}`);
        expect(action.status).toBe(400);
        expect(JSON.stringify(action.body)).toContain('action');
      }
    });

    it('an unknown project is 404 for everyone, and so is an existing one the caller is not in (issue 15)', async () => {
      const missing = uniqueName('missing');
      for (const who of everyone) {
        const res = await as[who].get(`/api/v1/account/can-i/projects/get/${missing}`);
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('NOT_FOUND');
      }
      const hidden = await as.outsider.get(`/api/v1/account/can-i/instances/get/${main}`);
      expect([hidden.status, hidden.body.code]).toEqual([404, 'NOT_FOUND']);
    });

    it('the permission summary (Form A) agrees with Form B for each member', async () => {
      for (const who of ['platformAdmin', 'developer', 'viewer'] as const) {
        const summary = (await as[who].get('/api/v1/account/can-i')).body;
        expect(summary.serverAdmin).toBe(false);
        expect(Object.keys(summary.projects)).toEqual([main]);
        const { permissions } = summary.projects[main];
        for (const [key, resource, action] of [
          ['instances:create', 'instances', 'create'],
          ['instances:delete', 'instances', 'delete'],
          ['members:create', 'members', 'create'],
          ['roles:update', 'roles', 'update'],
          ['project:get', 'projects', 'get'],
        ]) {
          const formB = (await as[who].get(`/api/v1/account/can-i/${resource}/${action}/${main}`)).body.value;
          expect(permissions[key], `${who} ${key}`).toBe(formB === 'yes');
        }
      }
      expect((await as.outsider.get('/api/v1/account/can-i')).body).toEqual({ serverAdmin: false, projects: {} });
    });
  });
});
