import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { resources } from '@portico/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, uniqueName, type TestUser } from '../support/api-as.js';
import { clusterModes, useServer } from '../support/cluster-modes.js';
import { connect, type Client } from '../ws/harness.js';

// Contract §14, "Deleting a project", over HTTP on both cluster adapters: 409 with the count and nothing changed;
// cascade deletes the instances (a hybrid one through its repository), reports deploy_progress per instance to
// the project's members, then the Secrets and the project, and nothing of them is left in the cluster.
describe.each(clusterModes)('deleting a project (%s cluster)', (mode) => {
  const repo = mkdtempSync(path.join(tmpdir(), 'portico-project-deletion-'));
  const { tp, admin } = useServer(mode, { env: { PORTICO_GITOPS_REPO: repo } });
  let developer: TestUser;
  let viewer: TestUser;
  let outsider: TestUser;
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  beforeAll(async () => {
    [developer, viewer, outsider] = await Promise.all([createUser(tp, 'dev'), createUser(tp, 'view'), createUser(tp, 'out')]);
  });

  /** A project deploying to dev, the developer and viewer bound, with a Secret and `instances` WebApps (modes in order). */
  async function projectWith(modes: string[]) {
    const name = uniqueName('del');
    expect((await admin.post('/api/v1/projects', { name, destinations: [{ namespace: 'dev' }] })).status).toBe(201);
    await admin.post(`/api/v1/projects/${name}/roles/developer/users/${developer.username}`);
    await admin.post(`/api/v1/projects/${name}/roles/viewer/users/${viewer.username}`);
    expect((await admin.post(`/api/v1/projects/${name}/secrets`, { name: `${name}-db`, namespace: 'dev', data: { password: 'hunter2' } })).status).toBe(201);
    const instances: string[] = [];
    for (const [i, deploymentMode] of modes.entries()) {
      const instance = `${name}-${i}`;
      const created = await developer.post('/api/v1/instances', { name: instance, namespace: 'dev', rgdName: 'web-app', projectId: name, spec: { image: 'nginx' }, deploymentMode });
      expect(created.status).toBe(201);
      instances.push(instance);
    }
    return { name, instances };
  }

  const instancePath = (instance: string) => `/api/v1/namespaces/dev/instances/WebApp/${instance}`;
  const webApps = async () => (await tp.kubectl.discover('kro.run', 'v1alpha1', 'WebApp'))!;
  const secretsOf = async (project: string) => (await tp.kubectl.list(resources.secret, { labelSelector: `portico.dev/project=${project}` })).items;
  const eventsAbout = async (project: string) =>
    (await tp.kubectl.list(resources.event, { namespace: 'dev' })).items.filter((e) => String((e.involvedObject as { name?: string }).name).startsWith(`${project}-`));

  async function socketOf(user: TestUser, project: string): Promise<Client> {
    const socket = await connect(`${tp.wsBase}/ws?ticket=${(await user.post('/api/v1/ws/ticket')).body.ticket}`);
    socket.send({ type: 'subscribe', data: { resourceType: 'instances', project } });
    await socket.next((f) => f.type === 'subscribed');
    return socket;
  }

  it('is 409 CONFLICT with the number of instances, and nothing changes', async () => {
    const { name, instances } = await projectWith(['direct', 'direct']);
    const refused = await admin.del(`/api/v1/projects/${name}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'CONFLICT', details: { instances: 2 } });
    expect(Object.keys(refused.body.details)).toEqual(['instances']);

    expect((await viewer.get(`/api/v1/projects/${name}`)).status).toBe(200);
    expect((await viewer.get(`/api/v1/instances?project=${name}`)).body.totalCount).toBe(2);
    for (const instance of instances) expect((await developer.get(instancePath(instance))).status).toBe(200);
    expect(await secretsOf(name)).toHaveLength(1);
    expect((await admin.del(`/api/v1/projects/${name}?cascade=false`)).status).toBe(409);
  });

  it('is 403 to a member and 404 to an outsider, with or without cascade, and neither learns the count', async () => {
    const { name, instances } = await projectWith(['direct', 'direct', 'direct']);
    for (const query of ['', '?cascade=true']) {
      const member = await viewer.del(`/api/v1/projects/${name}${query}`);
      expect(member.status).toBe(403);
      const stranger = await outsider.del(`/api/v1/projects/${name}${query}`);
      expect(stranger.status).toBe(404);
      expect(stranger.body.details).toEqual({ resource: 'project', identifier: name });
      for (const body of [member.body, stranger.body]) expect(JSON.stringify(body)).not.toMatch(/instances|\b3\b/);
    }
    expect((await developer.get(`/api/v1/instances?project=${name}`)).body.totalCount).toBe(instances.length);
  });

  it('refuses a cascade value other than true or false (400), changing nothing', async () => {
    const { name } = await projectWith(['direct']);
    const bad = await admin.del(`/api/v1/projects/${name}?cascade=yes`);
    expect(bad.status).toBe(400);
    expect((await admin.get(`/api/v1/projects/${name}`)).status).toBe(200);
  });

  it('with cascade=true deletes every instance (a hybrid one through Git), reports each to members, then the Secrets and the project', async () => {
    const { name, instances } = await projectWith(['direct', 'hybrid']);
    const ref = await webApps();
    for (const instance of instances) {
      const deadline = Date.now() + 20_000;
      while ((await developer.get(instancePath(instance))).body.health !== 'Healthy') {
        if (Date.now() > deadline) throw new Error(`${instance} did not become Healthy`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    expect((await eventsAbout(name)).length).toBeGreaterThan(0);
    const member = await socketOf(viewer, name);
    const stranger = await socketOf(outsider, name);
    try {
      const deleted = await admin.del(`/api/v1/projects/${name}?cascade=true`);
      expect(deleted.status).toBe(204);

      // Progress reached the member's socket, one instance after the other.
      for (const [i, instance] of instances.entries()) {
        const step = `${i + 1} of ${instances.length}`;
        const deleting = await member.next((f) => f.type === 'deploy_progress' && f.data.name === instance && f.data.phase === 'DELETING' && f.data.message.startsWith('deleting'));
        expect(deleting.data).toMatchObject({ project: name, namespace: 'dev', kind: 'WebApp', instanceId: `dev/WebApp/${instance}`, message: `deleting (${step}): project "${name}" is being deleted` });
        await member.next((f) => f.type === 'deploy_progress' && f.data.name === instance && f.data.phase === 'DELETED' && f.data.message === `deleted (${step})`);
      }
      expect(stranger.frames.filter((f) => f.type === 'deploy_progress' || f.type === 'instance_update')).toEqual([]);

      // Nothing of the project is left in the cluster.
      for (const instance of instances) expect(await tp.kubectl.get(ref, instance, 'dev')).toBeUndefined();
      expect(await eventsAbout(name)).toEqual([]);
      expect(await secretsOf(name)).toEqual([]);
      expect(await tp.kubectl.get(resources.project, name, tp.portico.config.kubernetes.namespace)).toBeUndefined();
      expect((await admin.get(`/api/v1/projects/${name}`)).status).toBe(404);
      expect((await viewer.get(`/api/v1/instances?project=${name}`)).body.totalCount).toBe(0);
    } finally {
      member.socket.close();
      stranger.socket.close();
    }
  });
});
