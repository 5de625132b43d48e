import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser, uniqueName, type ApiAs, type Reply } from './support/api-as.js';
import { clusterModes, useServer } from './support/cluster-modes.js';
import { until } from './support/until.js';

/**
 * Instances over HTTP, end to end, on both cluster adapters: Portico creates the custom resource, the simulated
 * kro controller walks it (inside the embedded cluster, or beside Portico against the API server), and what
 * Portico serves follows through its watch.
 */
describe.each(clusterModes)('instances over HTTP (%s cluster)', (mode) => {
  const { tp, admin } = useServer(mode);
  let project: string;
  let developer: ApiAs;
  let viewer: ApiAs;

  beforeAll(async () => {
    project = await createProject(tp, 'inst', ['dev', 'team-*']);
    const dev = await createUser(tp, 'dev');
    const view = await createUser(tp, 'view');
    await admin.post(`/api/v1/projects/${project}/roles/developer/users/${dev.username}`);
    await admin.post(`/api/v1/projects/${project}/roles/viewer/users/${view.username}`);
    [developer, viewer] = [dev, view];
  });

  const healthy = (r: Reply) => r.status === 200 && r.body.health === 'Healthy';
  const webApp = (name: string, values: Record<string, unknown> = { image: 'nginx:1.27' }) => ({ name, project, values });

  it('creates a namespaced instance (Form A) that kro walks to Healthy, visible to members in lists and counts', async () => {
    const name = uniqueName('shop');
    const created = await developer.post('/api/v1/namespaces/dev/instances/WebApp', webApp(name));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name,
      namespace: 'dev',
      isClusterScoped: false,
      project,
      rgdName: 'web-app',
      kind: 'WebApp',
      deploymentMode: 'direct',
      spec: { image: 'nginx:1.27', replicas: 2, port: 8080 },
      labels: { 'portico.dev/project': project, 'portico.dev/deployment-mode': 'direct' },
    });

    const path = `/api/v1/namespaces/dev/instances/WebApp/${name}`;
    const ready = await until(developer, path, healthy, 'the instance to be Healthy');
    expect(ready.body.status.state).toBe('ACTIVE');
    expect(ready.body.conditions.find((c: { type: string }) => c.type === 'Ready')).toMatchObject({ status: 'True' });

    const listed = await developer.get(`/api/v1/instances?project=${project}&kind=WebApp&search=${name}`);
    expect(listed.body).toMatchObject({ totalCount: 1, page: 1, items: [{ name, health: 'Healthy' }] });
    expect((await viewer.get(path)).status).toBe(200);
    expect((await viewer.get('/api/v1/instances/count')).body.count).toBeGreaterThanOrEqual(1);
    const rgd = await developer.get('/api/v1/rgds/web-app');
    expect(rgd.body.instances).toBeGreaterThanOrEqual(1);
  });

  it('creates through Form B and a cluster-scoped kind through `_`', async () => {
    const flat = uniqueName('flat');
    const formB = await developer.post('/api/v1/instances', { name: flat, namespace: 'team-a-dev', rgdName: 'web-app', projectId: project, spec: { image: 'nginx' }, deploymentMode: 'direct' });
    expect(formB.status).toBe(201);
    expect(formB.body).toMatchObject({ name: flat, namespace: 'team-a-dev', kind: 'WebApp' });
    await until(developer, `/api/v1/namespaces/team-a-dev/instances/WebApp/${flat}`, healthy, 'the Form B instance to be Healthy');

    const tenant = uniqueName('tenant');
    const scoped = await developer.post('/api/v1/instances/_/TenantNamespace', { name: tenant, project, values: { team: 'shop', adminGroup: 'shop-admins' } });
    expect(scoped.status).toBe(201);
    expect(scoped.body).toMatchObject({ name: tenant, namespace: '', isClusterScoped: true, kind: 'TenantNamespace' });
    await until(developer, `/api/v1/instances/_/TenantNamespace/${tenant}`, healthy, 'the cluster-scoped instance to be Healthy');
  });

  it('refuses what the contract refuses: bad values, a namespace outside the destinations, a viewer, a taken name', async () => {
    const invalid = await developer.post('/api/v1/namespaces/dev/instances/WebApp', webApp(uniqueName('bad'), { replicas: 'many' }));
    expect([invalid.status, invalid.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    const outside = await developer.post('/api/v1/namespaces/staging/instances/WebApp', webApp(uniqueName('far')));
    expect([outside.status, outside.body.details.allowed]).toEqual([403, ['dev', 'team-*']]);
    expect((await viewer.post('/api/v1/namespaces/dev/instances/WebApp', webApp(uniqueName('view')))).status).toBe(403);
    const name = uniqueName('twice');
    expect((await developer.post('/api/v1/namespaces/dev/instances/WebApp', webApp(name))).status).toBe(201);
    expect((await developer.post('/api/v1/namespaces/dev/instances/WebApp', webApp(name))).status).toBe(409);
  });

  it('a spec change re-walks to Healthy; a stale resourceVersion is a conflict; a viewer may not change it', async () => {
    const name = uniqueName('grow');
    const path = `/api/v1/namespaces/dev/instances/WebApp/${name}`;
    await developer.post('/api/v1/namespaces/dev/instances/WebApp', webApp(name));
    const before = await until(developer, path, healthy, 'the instance to be Healthy');

    const patched = await developer.call('PATCH', path, { spec: { replicas: 3 }, resourceVersion: before.body.resourceVersion });
    expect(patched.status).toBe(200);
    expect(patched.body.spec).toMatchObject({ image: 'nginx:1.27', replicas: 3 });
    const after = await until(developer, path, (r) => healthy(r) && r.body.spec.replicas === 3, 'the re-walk');
    expect(after.body.resourceVersion).not.toBe(before.body.resourceVersion);

    const stale = await developer.call('PATCH', path, { spec: { replicas: 4 }, resourceVersion: before.body.resourceVersion });
    expect([stale.status, stale.body.code]).toEqual([409, 'CONFLICT']);
    expect((await viewer.call('PATCH', path, { spec: { replicas: 5 } })).status).toBe(403);
    expect((await viewer.del(path)).status).toBe(403);
  });

  it('30 concurrent merge PATCHes without a resourceVersion all succeed and none is lost (issue 15)', async () => {
    const name = uniqueName('busy');
    const path = `/api/v1/namespaces/dev/instances/WebApp/${name}`;
    await developer.post('/api/v1/namespaces/dev/instances/WebApp', webApp(name));
    const first = await until(developer, path, (r) => r.status === 200, 'the instance');

    const keys = Array.from({ length: 30 }, (_, i) => `KEY_${i}`);
    const replies = await Promise.all(keys.map((key) => developer.call('PATCH', path, { spec: { env: { [key]: 'set' } } })));
    expect(replies.map((r) => r.status)).toEqual(keys.map(() => 200));
    // Each patch was merged into what the previous ones wrote: every key is there.
    const final = await until(developer, path, (r) => Object.keys(r.body.spec?.env ?? {}).length === keys.length, 'every key');
    expect(Object.keys(final.body.spec.env).sort()).toEqual([...keys].sort());
    // A stale explicit version is still the client's conflict (one read before the 30 writes: any single reply's
    // version may be the newest, since retries finish in any order).
    const stale = await developer.call('PATCH', path, { spec: { replicas: 2 }, resourceVersion: first.body.resourceVersion });
    expect([stale.status, stale.body.code]).toEqual([409, 'CONFLICT']);
  });

  it('deletion answers DELETING, then the instance is gone', async () => {
    const name = uniqueName('bye');
    const path = `/api/v1/namespaces/dev/instances/WebApp/${name}`;
    await developer.post('/api/v1/namespaces/dev/instances/WebApp', webApp(name));
    await until(developer, path, healthy, 'the instance to be Healthy');
    const deleted = await developer.del(path);
    expect(deleted.status).toBe(200);
    expect(deleted.body.status.state).toBe('DELETING');
    await until(developer, path, (r) => r.status === 404, 'the instance to be gone');
    expect((await developer.get(`/api/v1/instances?project=${project}&search=${name}`)).body.totalCount).toBe(0);
  });

  it('a resource kro cannot make ready turns the instance Unhealthy; it recovers when the cause goes', async () => {
    const name = uniqueName('flaky');
    const path = `/api/v1/namespaces/dev/instances/WebApp/${name}`;
    await developer.post('/api/v1/namespaces/dev/instances/WebApp', webApp(name));
    await until(developer, path, healthy, 'the instance to be Healthy');

    const ref = (await tp.kubectl.discover('kro.run', 'v1alpha1', 'WebApp'))!;
    await tp.kro.failResource(ref, 'dev', name, 'deployment');
    const failed = await until(developer, path, (r) => r.body.health === 'Unhealthy', 'the failure');
    expect(failed.body.status.state).toBe('ERROR');
    expect(failed.body.conditions.find((c: { type: string }) => c.type === 'Ready').message).toContain('deployment');

    await tp.kubectl.patch(ref, name, { metadata: { annotations: { 'portico.dev/simulate-failure': null } } }, { namespace: 'dev' });
    await until(developer, path, healthy, 'the recovery');
  });

  it('an instance applied with kubectl, labelled with the project, is served to its members', async () => {
    const name = uniqueName('kubectl');
    await tp.apply(`
apiVersion: kro.run/v1alpha1
kind: WebApp
metadata:
  name: ${name}
  namespace: dev
  labels: {portico.dev/project: ${project}}
spec: {image: nginx}
`);
    const path = `/api/v1/namespaces/dev/instances/WebApp/${name}`;
    const served = await until(developer, path, healthy, 'the kubectl instance to be served Healthy');
    expect(served.body).toMatchObject({ project, rgdName: 'web-app' });
    const outsider = await createUser(tp, 'nosy');
    expect((await outsider.get(path)).status).toBe(404);
    // Nothing of the project shows through lists or counts either.
    expect((await outsider.get(`/api/v1/instances?project=${project}`)).body).toMatchObject({ items: [], totalCount: 0 });
    expect((await outsider.get('/api/v1/instances/count')).body).toEqual({ count: 0 });
  });
});
