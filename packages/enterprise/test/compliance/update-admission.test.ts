import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createProject, uniqueName, type ApiAs } from '../../../server/test/support/api-as.js';
import { clusterModes } from '../../../server/test/support/cluster-modes.js';
import { eventually } from '../../../core/test/support/eventually.js';
import { createConstraint } from '../support/constraints.js';
import { issueLicense } from '../support/license.js';
import { useEnterprise } from '../support/server.js';

const catalog = new URL('../../../../examples/catalog', import.meta.url).pathname;
const labelledApp = new URL('./labelled-app.yaml', import.meta.url).pathname;
const clusterLabelledApp = new URL('./cluster-labelled-app.yaml', import.meta.url).pathname;
// The categories module watches Category objects: a real (or fake) API server must serve the kind.
const categoryCrd = new URL('../../../../deploy/crds/category.yaml', import.meta.url).pathname;

/** Waits until the constraints in force say `result` about these values (what an instance write will be judged by). */
const inForce = (admin: ApiAs, project: string, rgdName: string, namespace: string | undefined, values: Record<string, unknown>, result: 'block' | 'warning') =>
  eventually(() => admin.post('/api/v1/compliance/validate', { rgdName, project, ...(namespace ? { namespace } : {}), values }), (r) => r.body?.result === result, `the constraint to be in force (${result})`, { timeoutMs: 20_000 });

const requireOwner = (name: string, namespaces: string[]) => ({
  name, templateName: 'k8srequiredlabels', enforcementAction: 'deny',
  match: { kinds: [{ apiGroups: ['apps'], kinds: ['Deployment'] }], namespaces }, parameters: { labels: [{ key: 'owner' }] },
});

// §12.5: an instance update (PATCH, on both path families, and the Git modes' writes) that a deny constraint would
// reject is 403 FORBIDDEN with details.violations and changes nothing; warn constraints add details.warnings.
describe.each(clusterModes)('compliance on every instance write (%s cluster)', (mode) => {
  const repo = mkdtempSync(path.join(tmpdir(), 'portico-ee-gitops-'));
  const { ee, admin } = useEnterprise(mode, {
    manifests: [catalog, categoryCrd, labelledApp, clusterLabelledApp], license: issueLicense(), gatekeeper: true, env: { PORTICO_GITOPS_REPO: repo },
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));
  const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).trim();

  it('a PATCH a deny constraint rejects is 403 with the violations and changes nothing; a warn constraint adds warnings to the 200', async () => {
    await eventually(() => admin.get('/api/v1/compliance/status'), (r) => r.body.gatekeeper === 'installed', 'Gatekeeper installed', { timeoutMs: 20_000 });
    const ns = uniqueName('upd');
    const project = await createProject(ee, 'upd', [ns]);
    const app = uniqueName('app');
    const path = `/api/v1/namespaces/${ns}/instances/LabelledApp/${app}`;
    const made = await admin.post(`/api/v1/namespaces/${ns}/instances/LabelledApp`, { name: app, project, values: { labels: { owner: 'shop' } } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);

    const deny = uniqueName('owner-required');
    expect((await createConstraint(admin, requireOwner(deny, [ns]))).status).toBe(201);
    await inForce(admin, project, 'labelled-app', ns, { labels: {} }, 'block');
    const before = await admin.get(path);

    const refused = await admin.patch(path, { spec: { labels: { owner: null, team: 'x' } } });
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(refused.body.code).toBe('FORBIDDEN');
    expect(refused.body.details.violations).toEqual([
      expect.objectContaining({ constraintKind: 'K8sRequiredLabels', constraintName: deny, enforcementAction: 'deny', resource: { kind: 'Deployment', namespace: ns, name: app, apiGroup: 'apps' } }),
    ]);
    // Nothing written: the spec as it was, and no update recorded (kro's status writes may move the version).
    const unchanged = (body: { spec: unknown; updatedAt?: string }) => ({ spec: body.spec, updatedAt: body.updatedAt });
    expect(unchanged((await admin.get(path)).body)).toEqual(unchanged(before.body));

    // A change the deny constraint has nothing against goes through; a warn constraint's findings come with it.
    const warn = uniqueName('trusted-registry');
    expect((await createConstraint(admin, {
      name: warn, templateName: 'k8sallowedrepos', enforcementAction: 'warn',
      match: { kinds: [{ apiGroups: ['apps'], kinds: ['Deployment'] }], namespaces: [ns] }, parameters: { repos: ['registry.example.com/'] },
    })).status).toBe(201);
    await inForce(admin, project, 'labelled-app', ns, { labels: { owner: 'shop' }, image: 'docker.io/library/nginx:1' }, 'warning');
    const warned = await admin.patch(path, { spec: { image: 'docker.io/library/nginx:1' } });
    expect(warned.status, JSON.stringify(warned.body)).toBe(200);
    expect(warned.body.spec.image).toBe('docker.io/library/nginx:1');
    expect(warned.body.details.warnings).toEqual([expect.objectContaining({ policy: `K8sAllowedRepos/${warn}`, severity: 'warning' })]);
  }, 60_000);

  it('the cluster-scoped path family and its alias refuse the same way', async () => {
    const project = await createProject(ee, 'cluster-upd', ['dev']);
    const app = uniqueName('capp');
    const made = await admin.post('/api/v1/instances/_/ClusterLabelledApp', { name: app, project, values: { labels: { owner: 'ops' } } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect((await createConstraint(admin, requireOwner(uniqueName('cluster-owner'), ['cluster-apps']))).status).toBe(201);
    await inForce(admin, project, 'cluster-labelled-app', undefined, { labels: {} }, 'block');
    const before = await admin.get(`/api/v1/instances/_/ClusterLabelledApp/${app}`);
    for (const path of [`/api/v1/instances/_/ClusterLabelledApp/${app}`, `/api/v1/instances/ClusterLabelledApp/${app}`]) {
      const refused = await admin.patch(path, { spec: { labels: { owner: null } } });
      expect(refused.status, `${path}: ${JSON.stringify(refused.body)}`).toBe(403);
      expect(refused.body.details.violations).toEqual([expect.objectContaining({ resource: { kind: 'Deployment', namespace: 'cluster-apps', name: app, apiGroup: 'apps' } })]);
    }
    const after = (await admin.get(`/api/v1/instances/_/ClusterLabelledApp/${app}`)).body;
    expect([after.spec, after.updatedAt]).toEqual([before.body.spec, before.body.updatedAt]);
  }, 60_000);

  it('the Git modes: a refused update commits nothing (hybrid writes nothing either)', async () => {
    const ns = uniqueName('git');
    const project = await createProject(ee, 'git-upd', [ns]);
    expect((await createConstraint(admin, requireOwner(uniqueName('git-owner'), [ns]))).status).toBe(201);
    await inForce(admin, project, 'labelled-app', ns, { labels: {} }, 'block');
    const create = (name: string, deploymentMode: string) =>
      admin.post('/api/v1/instances', { name, namespace: ns, rgdName: 'labelled-app', projectId: project, spec: { labels: { owner: 'git' } }, deploymentMode });

    const hybrid = uniqueName('hyb');
    expect((await create(hybrid, 'hybrid')).status).toBe(201);
    // gitops: Portico only commits; applying the commit (as Argo CD or Flux would) makes the instance.
    const gitops = uniqueName('gops');
    expect((await create(gitops, 'gitops')).status).toBe(201);
    const file = path.join(repo, project, ns, 'LabelledApp', `${gitops}.yaml`);
    await ee.apply(readFileSync(file, 'utf8'));
    await eventually(() => admin.get(`/api/v1/namespaces/${ns}/instances/LabelledApp/${gitops}`), (r) => r.status === 200, 'the applied commit to show');

    const head = git('rev-parse', 'HEAD');
    for (const name of [hybrid, gitops]) {
      const before = await admin.get(`/api/v1/namespaces/${ns}/instances/LabelledApp/${name}`);
      const refused = await admin.patch(`/api/v1/namespaces/${ns}/instances/LabelledApp/${name}`, { spec: { labels: { owner: null } } });
      expect(refused.status, `${name}: ${JSON.stringify(refused.body)}`).toBe(403);
      expect(refused.body.details.violations[0]).toMatchObject({ enforcementAction: 'deny', resource: { name } });
      const after = (await admin.get(`/api/v1/namespaces/${ns}/instances/LabelledApp/${name}`)).body;
      expect([after.spec, after.updatedAt]).toEqual([before.body.spec, before.body.updatedAt]);
    }
    expect(git('rev-parse', 'HEAD')).toBe(head);
    expect(readFileSync(file, 'utf8')).toContain('owner: git');
  }, 60_000);
});
