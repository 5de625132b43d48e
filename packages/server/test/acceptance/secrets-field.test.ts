import * as api from '@portico/api';
import { type Operation, type OperationHook } from '@portico/core';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createUser, uniqueName, type TestUser } from '../support/api-as.js';
import { clusterModes, useServer } from '../support/cluster-modes.js';
import { ownerViewerProject } from '../support/owner-viewer-project.js';
import { capturedLogger } from '../support/captured-logger.js';

// Issue 38, acceptance 1 for §11.3's second path family (`/secrets?project=`, the one consoles in the field call),
// on both cluster adapters: the exact shapes, 404 for what the caller may not see, 400 for bad input, and the
// values nowhere but in a reveal.
describe.each(clusterModes)('%s cluster', (mode) => {
  const logs = capturedLogger();
  const operations: Operation[] = [];
  const record: OperationHook = (operation, run) => {
    operations.push(operation);
    return run();
  };
  const { tp } = useServer(mode, { logger: logs.logger, hooks: [record] });
  const at = (project: string, name?: string, namespace = 'dev') =>
    name === undefined ? `/api/v1/secrets?project=${project}` : `/api/v1/secrets/${name}?project=${project}&namespace=${namespace}`;

  /** A project deploying to dev with an owner (every secrets action and instances) and a viewer (get and list only). */
  const project = () =>
    ownerViewerProject(tp, 'sec', (name) => ({
      owner: ['secrets/*, *, allow', 'instances/*, *, allow', 'rgds/*, get, allow'],
      viewer: [`p, proj:${name}:viewer, secrets, get, ${name}/*, allow`, `p, proj:${name}:viewer, secrets, list, ${name}/*, allow`],
    }));

  async function createSecret(user: TestUser, projectName: string, data: Record<string, string>, name = uniqueName('db')) {
    const res = await user.post(at(projectName), { name, namespace: 'dev', data });
    expect(res.status).toBe(201);
    return { name, created: api.SecretSummary.parse(res.body) };
  }

  it('create, list in pages, HEAD, get with data, upsert keeping the other keys: the exact shapes', async () => {
    const { name: p, owner, viewer } = await project();
    const empty = await viewer.get(at(p));
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ items: [], pageCount: 0, hasMore: false });

    const value = `pw-${randomUUID()}`;
    const { name: first, created } = await createSecret(owner, p, { password: value, user: 'app' }, 'a-db');
    expect(created).toMatchObject({ name: first, namespace: 'dev', type: 'Opaque', keys: ['password', 'user'], createdBy: owner.username });
    expect(created.labels).toEqual({ 'portico.dev/project': p });
    const taken = await owner.post(at(p), { name: first, namespace: 'dev', data: { x: 'y' } });
    expect([taken.status, taken.body.code, taken.body.message]).toEqual([409, 'CONFLICT', `secret already exists: ${first}`]);
    await createSecret(owner, p, { token: 't' }, 'b-api');
    await createSecret(owner, p, { token: 't' }, 'c-cache');

    // Pages of two, in name order, never a value, the continue token taking up where the page ended.
    const one = await viewer.get(`${at(p)}&limit=2`);
    const page1 = api.SecretPage.parse(one.body);
    expect([page1.items.map((s) => s.name), page1.pageCount, page1.hasMore]).toEqual([['a-db', 'b-api'], 2, true]);
    expect(Object.keys(one.body.items[0]).sort()).toEqual(['createdAt', 'createdBy', 'keys', 'labels', 'name', 'namespace', 'resourceVersion', 'type', 'updatedAt']);
    const page2 = api.SecretPage.parse((await viewer.get(`${at(p)}&limit=2&continue=${page1.continue}`)).body);
    expect([page2.items.map((s) => s.name), page2.pageCount, page2.hasMore, page2.continue]).toEqual([['c-cache'], 1, false, undefined]);
    expect(JSON.stringify([one.body, page2])).not.toContain(value);

    // HEAD: 200 to whoever may see it, without a body and without needing reveal.
    const head = await fetch(`${tp.url}${at(p, first)}`, { method: 'HEAD', headers: { authorization: `Bearer ${viewer.token}` } });
    expect([head.status, await head.text()]).toEqual([200, '']);
    const missing = await fetch(`${tp.url}${at(p, 'nope')}`, { method: 'HEAD', headers: { authorization: `Bearer ${viewer.token}` } });
    expect([missing.status, await missing.text()]).toEqual([404, '']);

    // GET always answers the values, so it needs reveal.
    const revealed = await owner.get(at(p, first));
    expect(revealed.status).toBe(200);
    expect(api.SecretWithData.parse(revealed.body)).toMatchObject({ name: first, keys: ['password', 'user'], data: { password: value, user: 'app' } });
    const refused = await viewer.get(at(p, first));
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).not.toContain(value);

    // PUT sets the keys it sends and keeps the others.
    const upserted = await owner.put(`/api/v1/secrets/${first}?project=${p}`, { namespace: 'dev', data: { user: 'admin', port: '5432' } });
    expect(upserted.status).toBe(200);
    expect(api.SecretSummary.parse(upserted.body).keys).toEqual(['password', 'port', 'user']);
    expect((await owner.get(at(p, first))).body.data).toEqual({ password: value, port: '5432', user: 'admin' });
    expect((await viewer.put(`/api/v1/secrets/${first}?project=${p}`, { namespace: 'dev', data: { user: 'x' } })).status).toBe(403);
    expect((await owner.put(`/api/v1/secrets/nope?project=${p}`, { namespace: 'dev', data: { user: 'x' } })).status).toBe(404);
  });

  it('delete answers {deleted, warnings} naming the instances whose values mention the secret', async () => {
    const { name: p, owner, viewer } = await project();
    const { name } = await createSecret(owner, p, { 'tls.crt': 'c', 'tls.key': 'k' });
    const app = uniqueName('shop');
    const instance = await owner.post('/api/v1/namespaces/dev/instances/WebApp', {
      name: app, project: p, values: { image: 'nginx:1.27', ingress: { enabled: true, host: 'shop.example.com', tlsSecretName: name } },
    });
    expect(instance.status).toBe(201);
    expect((await viewer.del(at(p, name))).status).toBe(403);

    const deleted = await owner.del(at(p, name));
    expect(deleted.status).toBe(200);
    expect(api.SecretDeleted.parse(deleted.body)).toEqual({ deleted: true, warnings: [`instance dev/WebApp/${app} mentions secret "${name}" in spec.ingress.tlsSecretName`] });
    expect((await owner.get(at(p, name))).status).toBe(404);
    expect((await owner.del(at(p, name))).status).toBe(404);

    const { name: unused } = await createSecret(owner, p, { a: 'b' });
    expect((await owner.del(at(p, unused))).body).toEqual({ deleted: true, warnings: [] });
  });

  it('is 404 to whoever may not see it, 403 outside the destinations, 400 on bad input, and changes nothing then', async () => {
    const { name: p, owner } = await project();
    const { name } = await createSecret(owner, p, { a: 'b' });
    const outsider = await createUser(tp, 'outsider');
    for (const res of [await outsider.get(at(p)), await outsider.get(at(p, name)), await outsider.del(at(p, name)), await owner.get(at('no-such-project'))]) {
      expect([res.status, api.ErrorEnvelope.parse(res.body).code]).toEqual([404, 'NOT_FOUND']);
    }
    expect((await owner.get(at(p, name, 'prod'))).status).toBe(404);
    const elsewhere = await owner.post(at(p), { name: 'x', namespace: 'prod', data: { a: 'b' } });
    expect([elsewhere.status, elsewhere.body.details.allowed]).toEqual([403, ['dev']]);

    const bad: [string, string, unknown, string][] = [
      ['POST', at(p), { name: 'x', namespace: 'dev', data: {} }, 'data'],
      ['POST', at(p), { name: 'x', namespace: 'dev', data: { 'bad key': 'v', 'ok': 'v', 'also/bad': 'v' } }, 'data.bad key'],
      ['POST', at(p), { name: 'x', namespace: 'dev', data: { big: 'x'.repeat(256 * 1024 + 1) } }, 'data.big'],
      ['POST', at(p), { name: 'x', namespace: 'dev', data: { a: 'x'.repeat(200 * 1024), b: 'x'.repeat(200 * 1024), c: 'x'.repeat(200 * 1024) } }, 'data'],
      ['POST', at(p), { name: 'Bad_Name', namespace: 'dev', data: { a: 'b' } }, 'name'],
      ['POST', '/api/v1/secrets', { name: 'x', namespace: 'dev', data: { a: 'b' } }, 'project'],
      ['GET', `${at(p)}&limit=0`, undefined, 'limit'],
      ['GET', `${at(p)}&limit=abc`, undefined, 'limit'],
      ['GET', `${at(p)}&continue=not-a-token`, undefined, 'continue'],
      ['GET', `/api/v1/secrets/${name}?project=${p}`, undefined, 'namespace'],
      ['PUT', `/api/v1/secrets/${name}?project=${p}`, { data: { a: 'c' } }, 'namespace'],
      ['DELETE', `/api/v1/secrets/Bad_Name?project=${p}&namespace=dev`, undefined, 'secret'],
    ];
    for (const [method, path, body, field] of bad) {
      const res = await owner.call(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(400);
      const error = api.ErrorEnvelope.parse(res.body);
      expect(JSON.stringify(error.details), `${method} ${path}`).toContain(field);
    }
    const invalidKeys = await owner.post(at(p), { name: 'x', namespace: 'dev', data: { 'bad key': 'v', ok: 'v', 'also/bad': 'v' } });
    expect(Object.keys(invalidKeys.body.details.fields).sort()).toEqual(['data.also/bad', 'data.bad key']);
    expect(api.SecretPage.parse((await owner.get(at(p))).body).items.map((s) => s.name)).toEqual([name]);
    expect((await owner.get(at(p, name))).body.data).toEqual({ a: 'b' });
  });

  it('records the project family\'s operations, naming the secret; the values appear in no log', async () => {
    const { name: p, owner } = await project();
    const value = `leak-check-${randomUUID()}`;
    const { name } = await createSecret(owner, p, { password: value });
    await owner.get(at(p, name));
    await owner.put(`/api/v1/secrets/${name}?project=${p}`, { namespace: 'dev', data: { password: `${value}-2` } });
    await owner.post(at(p), { name, namespace: 'dev', data: { password: value } }); // 409
    await owner.del(at(p, name));

    const mine = operations.filter((o) => o.project === p && o.resource === 'secrets');
    expect(mine.map((o) => [o.id, o.name, o.namespace, o.secretFields])).toEqual([
      ['secrets.create', name, 'dev', ['data']],
      ['secrets.update', name, 'dev', ['data']],
      ['secrets.create', name, 'dev', ['data']],
      ['secrets.delete', name, 'dev', []],
    ]);
    expect(logs.text()).toContain(name);
    expect(logs.text()).not.toContain(value);
    expect(logs.text()).not.toContain(Buffer.from(value).toString('base64'));
  });
});
