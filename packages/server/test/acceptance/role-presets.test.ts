import * as api from '@portico/api';
import { describe, expect, it } from 'vitest';
import { createUser, uniqueName, type ApiAs, type TestUser } from '../support/api-as.js';
import { clusterModes, useServer } from '../support/cluster-modes.js';

// Issue 38, acceptance 2 (contract §11.8): the three role presets consoles in the field offer, for project `alpha`
// and role `r`, save with 201, read back byte for byte and grant what they say, on both cluster adapters.
const line = (resource: string, action: string, object: string) => `p, proj:alpha:r, ${resource}, ${action}, ${object}, allow`;

const presets = {
  admin: [
    line('projects', '*', 'alpha'), line('instances', '*', 'alpha/*'), line('rgds', 'get', '*'), line('rgds', 'list', '*'),
    line('repositories', '*', 'alpha/*'), line('compliance', 'get', 'alpha/*'),
  ],
  developer: [
    line('instances', '*', '*/alpha/*'), line('rgds', 'get', '*'), line('rgds', 'list', '*'),
    line('repositories', 'get', 'alpha/*'), line('repositories', 'list', 'alpha/*'),
  ],
  readonly: [
    line('projects', 'get', 'alpha'), line('instances', 'get', 'alpha/*'), line('instances', 'list', 'alpha/*'), line('rgds', 'get', '*'),
    line('rgds', 'list', '*'), line('repositories', 'get', 'alpha/*'), line('repositories', 'list', 'alpha/*'), line('compliance', 'get', 'alpha/*'),
  ],
};

describe.each(clusterModes)('%s cluster', (mode) => {
  const { tp, admin } = useServer(mode);
  const instancesIn = '/api/v1/namespaces/dev/instances/WebApp';
  const webApp = (project: string, name = uniqueName('app')) => ({ name, project, values: { image: 'nginx:1.27' } });
  const canI = async (user: ApiAs, resource: string, action: string) => (await user.get(`/api/v1/account/can-i/${resource}/${action}/alpha`)).body;

  /** Project alpha with role r made of `policies` and bound to a fresh user; beta beside it, where that user has no role. */
  async function alphaWith(policies: string[]): Promise<TestUser> {
    const user = await createUser(tp, 'bound');
    const created = await admin.post('/api/v1/projects', { name: 'alpha', destinations: [{ namespace: 'dev' }], roles: [{ name: 'r', policies, users: [user.username] }] });
    expect(created.status).toBe(201);
    expect(api.Project.parse(created.body).roles[0]!.policies).toEqual(policies);
    expect((await admin.get('/api/v1/projects/alpha')).body.roles[0].policies).toEqual(policies);
    if ((await admin.get('/api/v1/projects/beta')).status === 404) {
      expect((await admin.post('/api/v1/projects', { name: 'beta', destinations: [{ namespace: 'dev' }] })).status).toBe(201);
    }
    return user;
  }

  async function dropAlpha() {
    expect((await admin.del('/api/v1/projects/alpha?cascade=true')).status).toBe(204);
  }

  it('readonly: saved as written; lists and gets the project\'s instances, creates none', async () => {
    const user = await alphaWith(presets.readonly);
    try {
      const name = uniqueName('app');
      expect((await admin.post(instancesIn, webApp('alpha', name))).status).toBe(201);
      const list = await user.get('/api/v1/instances?project=alpha');
      expect(list.status).toBe(200);
      expect(api.InstanceList.parse(list.body).items.map((i) => i.name)).toEqual([name]);
      expect((await user.get(`${instancesIn}/${name}`)).status).toBe(200);
      const refused = await user.post(instancesIn, webApp('alpha'));
      expect(refused.status).toBe(403);
      expect((await user.patch(`${instancesIn}/${name}`, { spec: { image: 'nginx:1.28' } })).status).toBe(403);
      expect((await user.del(`${instancesIn}/${name}`)).status).toBe(403);
      expect(await canI(user, 'instances', 'create')).toEqual({ value: 'no' });
      expect(await canI(user, 'repositories', 'list')).toEqual({ value: 'yes' });
      expect((await admin.get('/api/v1/instances?project=alpha')).body.totalCount).toBe(1);
    } finally {
      await dropAlpha();
    }
  });

  it('developer: saved as written; creates in the project, not in another', async () => {
    const user = await alphaWith(presets.developer);
    try {
      const mine = uniqueName('app');
      const created = await user.post(instancesIn, webApp('alpha', mine));
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: mine, project: 'alpha', createdBy: user.username });
      expect((await user.del(`${instancesIn}/${mine}`)).status).toBe(200);

      const elsewhere = uniqueName('app');
      const refused = await user.post(instancesIn, webApp('beta', elsewhere));
      expect([403, 404]).toContain(refused.status);
      expect((await admin.get(`${instancesIn}/${elsewhere}`)).status).toBe(404);
      expect(await canI(user, 'instances', 'create')).toEqual({ value: 'yes' });
      expect(await canI(user, 'repositories', 'create')).toEqual({ value: 'no' });
    } finally {
      await dropAlpha();
    }
  });

  it('admin: saved as written; updates the project, deploys, never deletes the project or changes its roles', async () => {
    const user = await alphaWith(presets.admin);
    try {
      const project = (await user.get('/api/v1/projects/alpha')).body;
      const updated = await user.put('/api/v1/projects/alpha', { description: 'run by r', resourceVersion: project.resourceVersion });
      expect(updated.status).toBe(200);
      expect(updated.body.roles[0].policies).toEqual(presets.admin);
      const roles = await user.put('/api/v1/projects/alpha', { roles: [{ name: 'r', policies: ['instances/*, *, allow'], users: [user.username] }], resourceVersion: updated.body.resourceVersion });
      expect(roles.status).toBe(403);
      expect((await user.post(instancesIn, webApp('alpha'))).status).toBe(201);
      expect((await user.del('/api/v1/projects/alpha?cascade=true')).status).toBe(403);
      expect(await canI(user, 'projects', 'delete')).toEqual({ value: 'no' });
      expect(await canI(user, 'repositories', 'delete')).toEqual({ value: 'yes' });
    } finally {
      await dropAlpha();
    }
  });

  it('a policy is returned exactly as sent, spacing included', async () => {
    const policies = ['p,proj:alpha:r,  instances ,get,alpha/* ,allow', '  instances/*, list, allow'];
    await alphaWith(policies);
    await dropAlpha();
  });

  it.each([
    [line('applications', 'get', 'alpha/*'), 'unknown resource "applications"'],
    [line('instances', 'get', 'beta/*'), 'names project "beta"'],
    [line('instances', '*', '*/beta/*'), 'names project "beta"'],
    [line('secrets', 'get', '*/alpha/db'), 'cannot be mapped'],
    [line('projects', 'delete', 'alpha'), 'may grant only get and update of projects'],
  ])('refuses %s with 400 naming the role, the policy and why; nothing is stored', async (policy, reason) => {
    const res = await admin.post('/api/v1/projects', { name: 'alpha', destinations: [{ namespace: 'dev' }], roles: [{ name: 'r', policies: ['instances/*, get, allow', policy] }] });
    expect(res.status).toBe(400);
    const error = api.ErrorEnvelope.parse(res.body);
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toContain('role "r"');
    expect(error.message).toContain(policy);
    expect(error.message).toContain(reason);
    expect(error.details.fields).toHaveProperty(['roles.0.policies.1']);
    expect((await admin.get('/api/v1/projects/alpha')).status).toBe(404);
  });
});
