import * as api from '@portico/api';
import { resources } from '@portico/core';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createUser, uniqueName, type TestUser } from '../support/api-as.js';
import { clusterModes, useServer } from '../support/cluster-modes.js';
import { ownerViewerProject } from '../support/owner-viewer-project.js';
import { capturedLogger } from '../support/captured-logger.js';

// Issue 14, acceptance 1 and 5 for §11.1: a project's Secrets on both cluster adapters; values only through
// `reveal`, and never in the logs.
describe.each(clusterModes)('%s cluster', (mode) => {
  const logs = capturedLogger();
  const { tp } = useServer(mode, { logger: logs.logger });
  const secretsOf = (project: string) => `/api/v1/projects/${project}/secrets`;

  /** A project deploying to dev with an owner (every secrets action) and a viewer (get only). */
  const project = () => ownerViewerProject(tp, 'sec', () => ({ owner: ['secrets/*, *, allow'], viewer: ['secrets/*, get, allow', 'secrets/*, list, allow'] }));

  async function createSecret(user: TestUser, project: string, value: string) {
    const name = uniqueName('db');
    const res = await user.post(secretsOf(project), { name, namespace: 'dev', data: { password: value, user: 'app' } });
    expect(res.status).toBe(201);
    return { name, created: api.SecretSummary.parse(res.body) };
  }

  it('lists names and keys without values to a viewer; reveal needs its own action', async () => {
    const { name: projectName, owner, viewer } = await project();
    const value = `s3cret-${randomUUID()}`;
    const { name, created } = await createSecret(owner, projectName, value);
    expect(created).toMatchObject({ name, namespace: 'dev', type: 'Opaque', keys: ['password', 'user'], createdBy: owner.username });

    const list = await viewer.get(secretsOf(projectName));
    expect(list.status).toBe(200);
    expect(api.SecretList.parse(list.body).items.map((s) => [s.name, s.keys])).toEqual([[name, ['password', 'user']]]);
    expect(JSON.stringify(list.body)).not.toContain(value);

    const plain = await viewer.get(`${secretsOf(projectName)}/dev/${name}`);
    expect(plain.status).toBe(200);
    expect(api.SecretDetail.parse(plain.body).data).toBeUndefined();
    const refused = await viewer.get(`${secretsOf(projectName)}/dev/${name}?reveal=true`);
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).not.toContain(value);

    const revealed = await owner.get(`${secretsOf(projectName)}/dev/${name}?reveal=true`);
    expect(revealed.status).toBe(200);
    expect(api.SecretDetail.parse(revealed.body).data).toEqual({ password: value, user: 'app' });

    // Stored as a Kubernetes Secret labelled with its project.
    const stored = await tp.kubectl.get(resources.secret, name, 'dev');
    expect(stored?.metadata.labels?.['portico.dev/project']).toBe(projectName);
  });

  it('is 404 to those who may not see it, 403 outside the destinations, 400 on bad input, 409 on a stale version', async () => {
    const { name: projectName, owner, viewer } = await project();
    const { name, created } = await createSecret(owner, projectName, 'v1');
    const outsider = await createUser(tp, 'outsider');

    expect((await outsider.get(secretsOf(projectName))).status).toBe(404);
    expect((await outsider.get(`${secretsOf(projectName)}/dev/${name}`)).status).toBe(404);
    expect((await owner.get(`${secretsOf(projectName)}/dev/nope`)).status).toBe(404);
    expect((await owner.get(`${secretsOf('no-such-project')}`)).status).toBe(404);

    const elsewhere = await owner.post(secretsOf(projectName), { name: 'x', namespace: 'prod', data: { a: 'b' } });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.details.allowed).toEqual(['dev']);
    expect((await viewer.post(secretsOf(projectName), { name: 'x', namespace: 'dev', data: { a: 'b' } })).status).toBe(403);

    for (const body of [{ name: 'x', namespace: 'dev', data: {} }, { name: 'Bad_Name', namespace: 'dev', data: { a: 'b' } }, { namespace: 'dev' }]) {
      const bad = await owner.post(secretsOf(projectName), body);
      expect(bad.status).toBe(400);
      expect(api.ErrorEnvelope.parse(bad.body).code).toBe('VALIDATION_FAILED');
    }
    expect((await owner.get(`${secretsOf(projectName)}/Not_A_Ns/${name}`)).status).toBe(400);
    expect((await owner.put(`${secretsOf(projectName)}/dev/${name}`, { data: { a: 'b' } })).status).toBe(400);

    const replaced = await owner.put(`${secretsOf(projectName)}/dev/${name}`, { data: { token: 'v2' }, resourceVersion: created.resourceVersion });
    expect(replaced.status).toBe(200);
    expect(api.SecretSummary.parse(replaced.body).keys).toEqual(['token']);
    const stale = await owner.put(`${secretsOf(projectName)}/dev/${name}`, { data: { token: 'v3' }, resourceVersion: created.resourceVersion });
    expect(stale.status).toBe(409);
    expect((await viewer.put(`${secretsOf(projectName)}/dev/${name}`, { data: { token: 'v3' }, resourceVersion: replaced.body.resourceVersion })).status).toBe(403);
    expect((await viewer.del(`${secretsOf(projectName)}/dev/${name}`)).status).toBe(403);
  });

  it('a deleted secret\'s value appears nowhere in the logs', async () => {
    const { name: projectName, owner } = await project();
    const value = `leak-check-${randomUUID()}`;
    const { name, created } = await createSecret(owner, projectName, value);
    await owner.get(`${secretsOf(projectName)}/dev/${name}?reveal=true`);
    await owner.put(`${secretsOf(projectName)}/dev/${name}`, { data: { password: value }, resourceVersion: 'stale' });
    await owner.put(`${secretsOf(projectName)}/dev/${name}`, { data: { password: value }, resourceVersion: created.resourceVersion });
    await owner.post(secretsOf(projectName), { name, namespace: 'dev', data: { password: value } }); // 409
    expect((await owner.del(`${secretsOf(projectName)}/dev/${name}`)).status).toBe(204);
    expect((await owner.get(`${secretsOf(projectName)}/dev/${name}`)).status).toBe(404);

    expect(logs.text()).toContain(name); // the requests were logged...
    expect(logs.text()).not.toContain(value); // ...without the value,
    expect(logs.text()).not.toContain(Buffer.from(value).toString('base64')); // in either encoding.
  });
});
