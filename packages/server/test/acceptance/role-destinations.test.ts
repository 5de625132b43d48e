import * as api from '@portico/api';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createUser, uniqueName, type TestUser } from '../support/api-as.js';
import { clusterModes, useServer } from '../support/cluster-modes.js';

// Issue 14, acceptance 3 and 4: role destinations confine a role to namespaces in every decision; a Casbin-line
// policy is stored as written.
describe.each(clusterModes)('%s cluster', (mode) => {
  const { tp, admin } = useServer(mode);
  const webApp = (project: string, name: string) => ({ name, project, values: { image: 'nginx:1.27' } });
  const instancesIn = (namespace: string) => `/api/v1/namespaces/${namespace}/instances/WebApp`;

  /** A project deploying to dev and staging whose `developer` role only holds in dev. */
  async function confinedProject(user: TestUser) {
    const name = uniqueName('dest');
    const res = await admin.post('/api/v1/projects', {
      name,
      destinations: [{ namespace: 'dev' }, { namespace: 'staging' }],
      roles: [{ name: 'developer', policies: ['instances/*, *, allow', 'rgds/*, get, allow'], destinations: ['dev'], users: [user.username] }],
    });
    expect(res.status).toBe(201);
    expect(res.body.roles[0].destinations).toEqual(['dev']);
    return name;
  }

  /** Opens /ws as the user, subscribes to instances and collects every instance_update. */
  async function watchInstances(user: TestUser) {
    const { body } = await user.post('/api/v1/ws/ticket');
    const socket = new WebSocket(`${tp.wsBase}/ws?ticket=${body.ticket}`);
    const updates: { namespace: string; name: string }[] = [];
    socket.on('message', (raw) => {
      const frame = JSON.parse(String(raw));
      if (frame.type === 'instance_update') updates.push(frame.data);
    });
    await new Promise<void>((resolve, reject) => {
      socket.on('message', (raw) => JSON.parse(String(raw)).type === 'subscribed' && resolve());
      socket.once('error', reject);
      socket.once('open', () => socket.send(JSON.stringify({ type: 'subscribe', data: { resourceType: 'instances' } })));
    });
    return { updates, close: () => socket.close() };
  }

  it('a role with destinations [dev] creates in dev, not in staging, and sees no staging instance anywhere', async () => {
    const user = await createUser(tp, 'confined');
    const project = await confinedProject(user);
    const socket = await watchInstances(user);
    try {
      const mine = uniqueName('app');
      expect((await user.post(instancesIn('dev'), webApp(project, mine))).status).toBe(201);
      const refused = await user.post(instancesIn('staging'), webApp(project, uniqueName('app')));
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('FORBIDDEN');

      const hidden = uniqueName('app');
      expect((await admin.post(instancesIn('staging'), webApp(project, hidden))).status).toBe(201);
      // Let both instances progress so their status changes are published.
      await new Promise((r) => setTimeout(r, 500));

      const list = await user.get(`/api/v1/instances?project=${project}`);
      expect(list.status).toBe(200);
      const parsed = api.InstanceList.parse(list.body);
      expect(parsed.items.map((i) => i.name)).toEqual([mine]);
      expect(parsed.totalCount).toBe(1);
      expect((await admin.get(`/api/v1/instances?project=${project}`)).body.totalCount).toBe(2);
      expect((await user.get(`/api/v1/instances/count?project=${project}`)).body.count).toBe(1);
      expect((await user.get(`/api/v1/namespaces/staging/instances/WebApp/${hidden}`)).status).toBe(404);

      expect(socket.updates.some((u) => u.name === mine)).toBe(true);
      expect(socket.updates.filter((u) => u.namespace === 'staging')).toEqual([]);
      // Project-wide, the role does not hold: can-i says no, as it would for any narrower grant.
      expect((await user.get(`/api/v1/account/can-i/instances/create/${project}`)).body).toEqual({ value: 'no' });
    } finally {
      socket.close();
    }
  });

  it('stores a Casbin-line policy for the role being edited as written (§11.8); another project or role is a 400 naming it', async () => {
    const project = uniqueName('line');
    const policies = [`p, proj:${project}:ops, instances, get, *, allow`, 'rgds/*, get, allow'];
    const created = await admin.post('/api/v1/projects', { name: project, destinations: [{ namespace: 'dev' }], roles: [{ name: 'ops', policies }] });
    expect(created.status).toBe(201);
    expect(created.body.roles[0].policies).toEqual(policies);
    expect((await admin.get(`/api/v1/projects/${project}`)).body.roles[0].policies).toEqual(policies);

    const current = (await admin.get(`/api/v1/projects/${project}`)).body;
    for (const [policy, named] of [
      ['p, proj:other:ops, instances, get, *, allow', 'project "other"'],
      [`p, proj:${project}:admin, instances, get, *, allow`, 'role "admin"'],
    ]) {
      const res = await admin.put(`/api/v1/projects/${project}`, {
        resourceVersion: current.resourceVersion,
        roles: [{ name: 'ops', policies: [policy] }],
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(named);
    }
    expect((await admin.get(`/api/v1/projects/${project}`)).body.resourceVersion).toBe(current.resourceVersion);
  });
});
