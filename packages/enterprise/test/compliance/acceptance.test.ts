import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createProject, createUser, uniqueName, type ApiAs, type TestUser } from '../../../server/test/support/api-as.js';
import { clusterModes } from '../../../server/test/support/cluster-modes.js';
import { connect, type Client } from '../../../server/test/ws/harness.js';
import { eventually } from '../../../core/test/support/eventually.js';
import { createConstraint } from '../support/constraints.js';
import { issueLicense } from '../support/license.js';
import { useEnterprise, type EnterpriseServer } from '../support/server.js';

const catalog = new URL('../../../../examples/catalog', import.meta.url).pathname;
const labelledApp = new URL('./labelled-app.yaml', import.meta.url).pathname;
const categoryCrd = new URL('../../../../deploy/crds/category.yaml', import.meta.url).pathname;

async function socketOf(ee: EnterpriseServer, user: ApiAs, resourceType: string): Promise<Client> {
  const ticket = await user.post<{ ticket: string }>('/api/v1/ws/ticket');
  const client = await connect(`${ee.wsBase}/ws?ticket=${ticket.body.ticket}`);
  client.send({ type: 'subscribe', data: { resourceType } });
  await client.next((f) => f.type === 'subscribed');
  return client;
}

const bind = (admin: ApiAs, project: string, role: string, user: TestUser) => admin.post(`/api/v1/projects/${project}/roles/${role}/users/${user.username}`);

describe.each(clusterModes)('compliance acceptance 1 and 2 (%s cluster)', (mode) => {
  const { ee, admin } = useEnterprise(mode, { manifests: [catalog, categoryCrd, labelledApp], license: issueLicense(), gatekeeper: true });
  const sockets: Client[] = [];
  afterAll(() => sockets.forEach((s) => s.socket.close()));

  it('a deny constraint blocks, dryrun reports live to the project only, fixing resolves; dryrun → deny is audited and applies to the next create', async () => {
    await eventually(() => admin.get('/api/v1/compliance/status'), (r) => r.body.gatekeeper === 'installed', 'Gatekeeper installed', { timeoutMs: 20_000 });
    const name = uniqueName('must-have-owner');
    const created = await createConstraint(admin, {
      name,
      templateName: 'k8srequiredlabels',
      enforcementAction: 'deny',
      match: { kinds: [{ apiGroups: ['apps'], kinds: ['Deployment'] }], namespaces: ['team-a-dev'] },
      parameters: { labels: [{ key: 'owner' }] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ name, kind: 'K8sRequiredLabels', templateName: 'k8srequiredlabels', enforcementAction: 'deny', violationCount: 0 });

    const project = await createProject(ee, 'shop', ['team-a-dev']);
    const other = await createProject(ee, 'elsewhere', ['team-a-prod']);
    const alice = await createUser(ee, 'alice');
    const bob = await createUser(ee, 'bob');
    expect((await bind(admin, project, 'developer', alice)).status).toBe(201);
    expect((await bind(admin, other, 'developer', bob)).status).toBe(201);
    const aliceSocket = await socketOf(ee, alice, 'violations');
    const bobSocket = await socketOf(ee, bob, 'all');
    sockets.push(aliceSocket, bobSocket);

    // deny: 403 listing the violation, nothing written.
    const app = uniqueName('shop');
    const path = `/api/v1/namespaces/team-a-dev/instances/LabelledApp`;
    const refused = await alice.post(path, { name: app, project, values: {} });
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(refused.body.code).toBe('FORBIDDEN');
    expect(refused.body.details.violations).toEqual([
      expect.objectContaining({ constraintKind: 'K8sRequiredLabels', constraintName: name, enforcementAction: 'deny', resource: { kind: 'Deployment', namespace: 'team-a-dev', name: app, apiGroup: 'apps' } }),
    ]);
    expect(refused.body.details.violations[0].message).toContain('owner');
    expect((await alice.get(`${path}/${app}`)).status).toBe(404);
    expect(await ee.kubectl.list({ group: 'kro.run', version: 'v1alpha1', kind: 'LabelledApp', plural: 'labelledapps', namespaced: true }, { namespace: 'team-a-dev' }).then((l) => l.items.map((i) => i.metadata.name))).not.toContain(app);

    // dryrun: created, reported by the audit, live to the project's members only.
    expect((await admin.patch(`/api/v1/compliance/constraints/K8sRequiredLabels/${name}/enforcement`, { enforcementAction: 'dryrun' })).body.enforcementAction).toBe('dryrun');
    const made = await alice.post(path, { name: app, project, values: {} });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const added = await aliceSocket.next((f) => f.type === 'violation_update' && f.data.resource.name === app && f.data.action === 'add', 15_000);
    expect(added.data).toMatchObject({ constraintKind: 'K8sRequiredLabels', constraintName: name, enforcementAction: 'dryrun', project });
    const listed = await alice.get(`/api/v1/compliance/violations?project=${project}`);
    expect(listed.body.items).toEqual([expect.objectContaining({ constraintName: name, project, resource: expect.objectContaining({ name: app }) })]);
    expect(listed.body.total).toBe(1);
    expect((await bob.get(`/api/v1/compliance/violations?project=${project}`)).body).toMatchObject({ items: [], total: 0 });
    expect((await admin.get(`/api/v1/compliance/constraints/K8sRequiredLabels/${name}`)).body).toMatchObject({ violationCount: 1, violations: [expect.objectContaining({ resource: expect.objectContaining({ name: app }) })] });

    // Fixing the instance resolves the violation.
    const fixed = await alice.patch(`${path}/${app}`, { spec: { labels: { owner: 'shop-team' } } });
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(200);
    await aliceSocket.next((f) => f.type === 'violation_update' && f.data.resource.name === app && f.data.action === 'delete', 15_000);
    expect((await alice.get(`/api/v1/compliance/violations?project=${project}`)).body.total).toBe(0);
    expect(bobSocket.frames.filter((f) => f.type === 'violation_update' && f.data.resource?.name === app)).toEqual([]);

    // Acceptance 2: dryrun → deny is audited and applies to the next create.
    const switched = await admin.patch(`/api/v1/compliance/constraints/K8sRequiredLabels/${name}/enforcement`, { enforcementAction: 'deny' });
    expect(switched.status).toBe(200);
    const audited = await admin.get(`/api/v1/audit/events?action=enforcement_change`);
    expect(audited.body.events).toEqual(expect.arrayContaining([expect.objectContaining({ action: 'enforcement_change', resource: 'constraints', name, result: 'success', requestId: switched.headers['x-request-id'] })]));
    const createdAudit = await admin.get(`/api/v1/audit/events?resource=constraints&action=create`);
    expect(createdAudit.body.events).toEqual(expect.arrayContaining([expect.objectContaining({ name, result: 'success' })]));
    const next = await alice.post(path, { name: uniqueName('shop'), project, values: {} });
    expect(next.status).toBe(403);
    expect(next.body.details.violations[0]).toMatchObject({ constraintName: name, enforcementAction: 'deny' });
  }, 60_000);

  it('a warn constraint lets the create through with the findings as details.warnings; validate says the same before deploy', async () => {
    const name = uniqueName('trusted-registry');
    const created = await createConstraint(admin, {
      name, templateName: 'k8sallowedrepos', enforcementAction: 'warn',
      match: { kinds: [{ apiGroups: ['apps'], kinds: ['Deployment'] }], namespaces: ['team-a-prod'] },
      parameters: { repos: ['registry.example.com/'] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const project = await createProject(ee, 'warned', ['team-a-prod']);
    const values = { image: 'docker.io/library/nginx:1', labels: { owner: 'x' } };
    await eventually(
      () => admin.post('/api/v1/compliance/validate', { rgdName: 'labelled-app', project, namespace: 'team-a-prod', values }),
      (r) => r.body.result === 'warning',
      'validate to see the warn constraint',
    ).then((r) => expect(r.body.violations).toEqual([expect.objectContaining({ policy: `K8sAllowedRepos/${name}`, severity: 'warning', field: expect.stringContaining('Deployment/') })]));
    const good = await admin.post('/api/v1/compliance/validate', { rgdName: 'labelled-app', project, namespace: 'team-a-prod', values: { labels: { owner: 'x' } } });
    expect(good.body).toEqual({ result: 'pass', violations: [] });
    // A check changes nothing: the trail records the constraint's creation, not the validate calls.
    const trail = await admin.get(`/api/v1/audit/events?requestId=${good.headers['x-request-id']}`);
    expect(trail.status).toBe(200);
    expect(trail.body.events.filter((e: { requestId: string }) => e.requestId === good.headers['x-request-id'])).toEqual([]);
    expect((await admin.get(`/api/v1/audit/events?resource=constraints&action=create`)).body.events).toEqual(expect.arrayContaining([expect.objectContaining({ name })]));
    const made = await admin.post('/api/v1/namespaces/team-a-prod/instances/LabelledApp', { name: uniqueName('warned'), project, values });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.details.warnings).toEqual([expect.objectContaining({ policy: `K8sAllowedRepos/${name}`, severity: 'warning' })]);
  }, 30_000);

  it('constraint creation lists every bad field; unknown template 404; duplicate 409; only Server Admins write', async () => {
    const bad = await admin.post('/api/v1/compliance/constraints', {
      name: uniqueName('bad'), templateName: 'k8srequiredlabels',
      match: { kinds: [{ apiGroups: ['*'], kinds: ['*'] }], namespaces: ['kube-system', '*', 'dev'] },
      parameters: { labels: 'owner' },
    });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.details.fields).sort()).toEqual(['match.kinds.0.kinds', 'match.namespaces.0', 'match.namespaces.1', 'parameters.labels'].sort());
    expect((await admin.post('/api/v1/compliance/constraints', { name: uniqueName('x'), templateName: 'k8srequiredlabels' })).body.details.fields).toHaveProperty(['match.kinds']);
    expect((await admin.post('/api/v1/compliance/constraints', { name: uniqueName('x'), templateName: 'nope', match: { kinds: [{ kinds: ['Pod'] }] } })).status).toBe(404);
    expect((await admin.get('/api/v1/compliance/violations?resource=not-a-kind/x')).body.details.fields).toHaveProperty(['resource']);
    expect((await admin.get('/api/v1/compliance/constraints/lower/x')).status).toBe(400);
    expect((await admin.patch('/api/v1/compliance/constraints/K8sRequiredLabels/x/enforcement', { enforcementAction: 'block' })).status).toBe(400);
    expect((await admin.patch(`/api/v1/compliance/constraints/K8sRequiredLabels/${uniqueName('absent')}/enforcement`, { enforcementAction: 'warn' })).status).toBe(404);
    const name = uniqueName('ok');
    const body = { name, templateName: 'k8sblocknodeport', enforcementAction: 'dryrun', match: { kinds: [{ apiGroups: [''], kinds: ['Service'] }] } };
    expect((await createConstraint(admin, body)).status).toBe(201);
    await eventually(() => admin.post('/api/v1/compliance/constraints', body), (r) => r.status === 409, 'a duplicate refused');
    const user = await createUser(ee, 'nobody');
    expect((await user.post('/api/v1/compliance/constraints', { ...body, name: uniqueName('x') })).status).toBe(403);
    expect((await user.patch(`/api/v1/compliance/constraints/K8sBlockNodePort/${name}/enforcement`, { enforcementAction: 'deny' })).status).toBe(403);
    expect((await user.get('/api/v1/compliance/templates')).status).toBe(403);
    expect((await user.get('/api/v1/compliance/violations')).body).toMatchObject({ items: [], total: 0 });
    expect((await user.get('/api/v1/compliance/summary')).body).toEqual({ totalTemplates: 0, totalConstraints: 0, totalViolations: 0, byEnforcement: { deny: 0, warn: 0, dryrun: 0 } });
  }, 30_000);

  it('a project created later sees the violations already in its namespaces', async () => {
    const name = uniqueName('late');
    expect((await createConstraint(admin, {
      name, templateName: 'k8srequiredlabels', enforcementAction: 'dryrun',
      match: { kinds: [{ apiGroups: ['apps'], kinds: ['Deployment'] }], namespaces: ['prod'] }, parameters: { labels: [{ key: 'owner' }] },
    })).status).toBe(201);
    // Applied with kubectl, in a namespace no project holds yet.
    const app = uniqueName('stray');
    await ee.apply({ apiVersion: 'kro.run/v1alpha1', kind: 'LabelledApp', metadata: { name: app, namespace: 'prod' }, spec: {} });
    const unowned = await eventually(() => admin.get(`/api/v1/compliance/violations?constraint=K8sRequiredLabels/${name}`), (r) => r.body.total === 1, 'the audit to report it', { timeoutMs: 15_000 });
    expect(unowned.body.items[0].project).toBeUndefined();
    const project = await createProject(ee, 'late', ['prod']);
    const dana = await createUser(ee, 'dana');
    expect((await bind(admin, project, 'viewer', dana)).status).toBe(201);
    const seen = await eventually(() => dana.get(`/api/v1/compliance/violations?project=${project}`), (r) => r.body.total === 1, 'the new project to own it');
    expect(seen.body.items[0]).toMatchObject({ constraintName: name, project, resource: { kind: 'Deployment', namespace: 'prod', name: app } });
  }, 30_000);

  it('a Project object outside Portico\'s namespace claims nothing: violations stay with the projects Portico knows', async () => {
    const name = uniqueName('outside');
    const [qa, qaExtra] = [uniqueName('qa'), uniqueName('qa-extra')];
    expect((await createConstraint(admin, {
      name, templateName: 'k8srequiredlabels', enforcementAction: 'dryrun',
      match: { kinds: [{ apiGroups: ['apps'], kinds: ['Deployment'] }], namespaces: [qa, qaExtra] }, parameters: { labels: [{ key: 'owner' }] },
    })).status).toBe(201);
    const violations = () => admin.get(`/api/v1/compliance/violations?constraint=K8sRequiredLabels/${name}`);
    const owner = await createProject(ee, 'owner', [qa]);
    await ee.apply({ apiVersion: 'kro.run/v1alpha1', kind: 'LabelledApp', metadata: { name: uniqueName('kept'), namespace: qa }, spec: {} });
    await eventually(violations, (r) => r.body.total === 1 && r.body.items[0].project === owner, 'the violation to belong to its project', { timeoutMs: 15_000 });
    // Written with kubectl where Portico keeps no Projects, naming both namespaces exactly, with a name that sorts
    // first: were it read, it would take both violations.
    await ee.apply({ apiVersion: 'portico.dev/v1alpha1', kind: 'Project', metadata: { name: 'aaa-outside', namespace: 'team-x' }, spec: { destinations: [{ namespace: qa }, { namespace: qaExtra }], roles: [] } });
    await ee.apply({ apiVersion: 'kro.run/v1alpha1', kind: 'LabelledApp', metadata: { name: uniqueName('later'), namespace: qaExtra }, spec: {} });
    const later = await createProject(ee, 'later', [qaExtra]);
    const both = await eventually(violations, (r) => r.body.total === 2 && r.body.items.some((v: { project?: string }) => v.project === later), 'the later project to own its violation', { timeoutMs: 15_000 });
    expect(both.body.items.map((v: { resource: { namespace: string }; project?: string }) => [v.resource.namespace, v.project]).sort()).toEqual([[qa, owner], [qaExtra, later]].sort());
  }, 40_000);

  it('templates, constraints and the sample violations read in both path families', async () => {
    const templates = await admin.get('/api/v1/compliance/templates?pageSize=100');
    expect(templates.body.items.map((t: { kind: string }) => t.kind)).toEqual(expect.arrayContaining(['K8sRequiredLabels', 'K8sAllowedRepos', 'K8sContainerLimits', 'K8sBlockNodePort']));
    expect((await admin.get('/api/v1/gatekeeper/templates?pageSize=100')).body).toEqual(templates.body);
    expect((await admin.get('/api/v1/compliance/templates/k8sblocknodeport')).body).toMatchObject({ name: 'k8sblocknodeport', kind: 'K8sBlockNodePort', rego: expect.stringContaining('NodePort') });
    const sample = await eventually(
      () => admin.get('/api/v1/compliance/violations?constraint=K8sRequiredLabels/namespaces-must-have-environment'),
      (r) => r.body.total === 2,
      'the sample constraint to report the two unlabelled namespaces',
      { timeoutMs: 15_000 },
    );
    expect(sample.body.items.map((v: { resource: { name: string } }) => v.resource.name).sort()).toEqual(['default', 'portico']);
    expect((await admin.get('/api/v1/gatekeeper/violations?constraint=K8sRequiredLabels/namespaces-must-have-environment')).body).toEqual(sample.body);
    const summary = (await admin.get('/api/v1/compliance/summary')).body;
    expect(summary.totalTemplates).toBe(4);
    expect(summary.totalViolations).toBeGreaterThanOrEqual(2);
    expect((await admin.get('/api/v1/gatekeeper/constraints?enforcement=dryrun&pageSize=500')).body.items.map((c: { name: string }) => c.name)).toContain('namespaces-must-have-environment');
    expect((await admin.get(`/api/v1/compliance/constraints/K8sRequiredLabels/${randomUUID()}`)).status).toBe(404);
  });
});
