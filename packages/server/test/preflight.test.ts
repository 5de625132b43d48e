import { PreflightResponse, preflightCheckNames } from '@portico/api';
import { forbidden, type Disposable } from '@portico/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser, uniqueName, type ApiAs, type Reply } from './support/api-as.js';
import { clusterModes, useServer } from './support/cluster-modes.js';

const webAppKind = { group: 'kro.run', version: 'v1alpha1', kind: 'WebApp', plural: 'webapps', namespaced: true };

/**
 * §11.4 over HTTP on both cluster adapters: a preflight runs every check of a create, in the create's order, and
 * writes nothing; a request that would fail a create fails exactly the check the create would fail at, in a 200.
 */
describe.each(clusterModes)('preflight (%s cluster)', (mode) => {
  const { tp, admin } = useServer(mode);
  let project: string;
  let developer: ApiAs;
  let viewer: ApiAs;
  let outsider: ApiAs;
  const path = '/api/v1/namespaces/dev/instances/WebApp/preflight';
  const body = (extra: Record<string, unknown> = {}) => ({ name: uniqueName('pf'), project, values: { image: 'nginx:1.27' }, ...extra });

  beforeAll(async () => {
    project = await createProject(tp, 'pre', ['dev']);
    const [dev, view, other] = await Promise.all([createUser(tp, 'dev'), createUser(tp, 'view'), createUser(tp, 'other')]);
    await admin.post(`/api/v1/projects/${project}/roles/developer/users/${dev.username}`);
    await admin.post(`/api/v1/projects/${project}/roles/viewer/users/${view.username}`);
    [developer, viewer, outsider] = [dev, view, other];
  });

  /** The answer parsed with the contract's schema: a preflight is always 200. */
  const answer = (reply: Reply) => {
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return PreflightResponse.parse(reply.body);
  };
  /** Passed checks, then the one that failed: what a request failing exactly at `check` answers. */
  const failsAt = (result: PreflightResponse, check: string, message: RegExp, passed: readonly string[] = preflightCheckNames.slice(0, preflightCheckNames.indexOf(check as never))) => {
    expect(result.valid).toBe(false);
    expect(result.message).toMatch(message);
    expect(result.checks.map((c) => [c.name, c.ok])).toEqual([...passed.map((n) => [n, true]), [check, false]]);
    expect(result.checks.at(-1)!.message).toBe(result.message);
  };
  const webApps = async () => (await tp.kubectl.list(webAppKind, { namespace: 'dev' })).items.map((o) => o.metadata.name);

  it('a valid request passes every check in the create\'s order and writes nothing', async () => {
    const before = await webApps();
    const countBefore = (await admin.get('/api/v1/instances/count')).body.count;
    const request = body();
    const result = answer(await developer.post(path, request));
    expect(result).toEqual({ valid: true, checks: preflightCheckNames.map((name) => ({ name, ok: true })) });
    expect((await developer.get(`/api/v1/namespaces/dev/instances/WebApp/${request.name}`)).status).toBe(404);
    expect(await webApps()).toEqual(before);
    expect((await admin.get('/api/v1/instances/count')).body.count).toBe(countBefore);
    // And the same request then creates, so the preflight spoke of a create that can happen.
    expect((await developer.post('/api/v1/namespaces/dev/instances/WebApp', request)).status).toBe(201);
  });

  it('without a name the name is not checked, and the rest passes', async () => {
    const { name: _name, ...nameless } = body();
    const result = answer(await developer.post(path, nameless));
    expect(result.valid).toBe(true);
    expect(result.checks.find((c) => c.name === 'name')).toEqual({ name: 'name', ok: true, message: 'no name given: not checked' });
  });

  it('answers on the cluster-scoped path, its alias, and with a Form B body', async () => {
    const tenant = { project, values: { team: 'shop', adminGroup: 'shop-admins' } };
    expect(answer(await developer.post('/api/v1/instances/_/TenantNamespace/preflight', { name: uniqueName('t'), ...tenant })).valid).toBe(true);
    expect(answer(await developer.post('/api/v1/instances/TenantNamespace/preflight', { name: uniqueName('t'), ...tenant })).valid).toBe(true);
    const formB = { name: uniqueName('b'), namespace: 'dev', rgdName: 'web-app', projectId: project, spec: { image: 'nginx' }, deploymentMode: 'direct' };
    expect(answer(await developer.post(path, formB)).valid).toBe(true);
    failsAt(answer(await developer.post(path, { ...formB, namespace: 'prod' })), 'request', /namespace "prod" in the body/);
  });

  it('fails at `request` for a body a create would refuse, and only malformed JSON is 400', async () => {
    failsAt(answer(await developer.post(path, body({ name: 'Not_A_Name' }))), 'request', /name/);
    failsAt(answer(await developer.post(path, { name: uniqueName('x') })), 'request', /project/);
    failsAt(answer(await developer.post(path, [1, 2])), 'request', /invalid/);
    const malformed = await fetch(`${tp.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${developer.token}`, 'content-type': 'application/json' }, body: '{"name":' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('fails at `project` for a Server Admin naming a project that does not exist', async () => {
    failsAt(answer(await admin.post(path, body({ project: uniqueName('nope') }))), 'project', /project "nope-.*" not found/);
  });

  it('fails at `permission` for a member without create, and tells an outsider nothing of whether a project exists', async () => {
    // The project's existence is told only with the permission (as a create's 403 tells nothing more).
    failsAt(answer(await viewer.post(path, body())), 'permission', /may not create/, ['request']);
    const existing = answer(await outsider.post(path, body()));
    const missing = answer(await outsider.post(path, body({ project: uniqueName('nope') })));
    failsAt(existing, 'permission', /may not create/, ['request']);
    failsAt(missing, 'permission', /may not create/, ['request']);
    expect(missing.checks.map((c) => c.name)).toEqual(existing.checks.map((c) => c.name));
  });

  it('fails at `destination` for a namespace that is not the project\'s', async () => {
    failsAt(answer(await developer.post('/api/v1/namespaces/prod/instances/WebApp/preflight', body())), 'destination', /"prod" is not a destination/);
  });

  it('fails at `rgd` for a kind no catalog RGD has, and for a kind that is not the named RGD\'s', async () => {
    failsAt(answer(await developer.post('/api/v1/namespaces/dev/instances/NoSuchKind/preflight', body())), 'rgd', /not found/);
    failsAt(answer(await developer.post(path, body({ rgdName: 'postgres-database' }))), 'rgd', /does not match/);
  });

  it('fails at `values` for values the RGD\'s schema refuses', async () => {
    failsAt(answer(await developer.post(path, body({ values: { replicas: 'many' } }))), 'values', /schema/);
  });

  it('fails at `deploymentMode` for a mode the RGD does not allow, an unknown one, or a Git mode without a repository', async () => {
    const postgres = { values: { databaseName: 'shop', passwordSecret: 'shop-db' } };
    failsAt(answer(await developer.post('/api/v1/namespaces/dev/instances/PostgresDatabase/preflight', body({ ...postgres, deploymentMode: 'hybrid' }))), 'deploymentMode', /does not allow deployment mode "hybrid"/);
    failsAt(answer(await developer.post(path, body({ deploymentMode: 'sideways' }))), 'deploymentMode', /deploymentMode must be one of/);
    failsAt(answer(await developer.post(path, body({ deploymentMode: 'gitops' }))), 'deploymentMode', /needs a GitOps repository: give repositoryId/);
  });

  it('fails at `name` for a name that is taken', async () => {
    const request = body();
    expect((await developer.post('/api/v1/namespaces/dev/instances/WebApp', request)).status).toBe(201);
    failsAt(answer(await developer.post(path, request)), 'name', /already exists/);
  });

  it('fails at `compliance` when an edition\'s admission refuses, and its warnings keep the request valid', async () => {
    let admission: Disposable | undefined;
    try {
      admission = tp.portico.instances.addAdmission(async ({ manifest }) => {
        if (manifest.spec?.image === 'forbidden:latest') {
          throw forbidden('refused', { violations: [{ constraintKind: 'K8sAllowedRepos', constraintName: 'trusted-registries', message: 'image "forbidden:latest" is not from a trusted registry' }] });
        }
        return { warnings: [{ policy: 'K8sRequiredLabels/owner', severity: 'warning', message: 'you should set an owner' }] };
      });
      failsAt(answer(await developer.post(path, body({ values: { image: 'forbidden:latest' } }))), 'compliance', /^Blocked by policy "K8sAllowedRepos\/trusted-registries": image "forbidden:latest"/);
      const warned = answer(await developer.post(path, body()));
      expect(warned.valid).toBe(true);
      expect(warned.checks).toContainEqual({ name: 'compliance', ok: true, message: 'Warning from policy "K8sRequiredLabels/owner": you should set an owner' });
    } finally {
      admission?.close();
    }
  });

  it('fails at `admission` when the cluster\'s own admission would refuse the object, and writes nothing', async () => {
    const refuseNamed = (name: string | undefined) => name?.startsWith('refused-');
    let webhook: Disposable | undefined;
    if (tp.api) {
      tp.api.setAdmissionWebhook({ name: 'test.policy', review: ({ object }) => (refuseNamed(object.metadata?.name) ? 'names starting with refused- are not allowed' : undefined) });
    } else {
      webhook = tp.kubectl.addAdmissionWebhook?.((ref, obj) => {
        if (ref.kind === 'WebApp' && refuseNamed(obj.metadata.name)) throw forbidden('admission webhook "test.policy" denied the request: names starting with refused- are not allowed');
      });
    }
    try {
      const name = uniqueName('refused');
      failsAt(answer(await developer.post(path, body({ name }))), 'admission', /test\.policy.*names starting with refused-/);
      expect(await webApps()).not.toContain(name);
      expect(await tp.kubectl.get(webAppKind, name, 'dev')).toBeUndefined();
    } finally {
      tp.api?.setAdmissionWebhook(undefined);
      webhook?.close();
    }
  });

  it('never reads `preflight` as an instance name, and a POST to an instance is 405', async () => {
    const asInstance = await developer.get('/api/v1/instances/TenantNamespace/preflight');
    expect(asInstance.status).toBe(405);
    expect(asInstance.headers.allow).toBe('POST');
    expect((await developer.get('/api/v1/namespaces/dev/instances/WebApp/preflight')).status).toBe(405);
    const post = await developer.post('/api/v1/namespaces/dev/instances/WebApp/some-name', body());
    expect(post.status).toBe(405);
    expect(post.body).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
  });

  it('needs a signed-in caller', async () => {
    const res = await fetch(`${tp.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body()) });
    expect(res.status).toBe(401);
  });

});
