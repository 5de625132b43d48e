import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, createProject, createUser, uniqueName, type ApiAs } from '../../../server/test/support/api-as.js';
import { clusterModes } from '../../../server/test/support/cluster-modes.js';
import { eventually } from '../../../core/test/support/eventually.js';
import { issueLicense } from '../support/license.js';
import { startEnterpriseServer, useEnterprise, type EnterpriseServer } from '../support/server.js';

// The Category CRD too: the Kubernetes adapter serves only the kinds whose CRDs are applied.
const manifests = ['../../../../examples/catalog', './labelled-app.yaml', '../../../../deploy/crds/category.yaml'].map((p) => new URL(p, import.meta.url).pathname);
const HISTORY = '/api/v1/compliance/violations/history';

interface Record {
  resourceName: string;
  constraintName: string;
  status: string;
  firstSeen: string;
  resolvedAt: string | null;
  enforcementAction: string;
}

/** A dryrun K8sRequiredLabels constraint on the Deployments of `namespace`, waiting for the audit to know it. */
async function requireOwnerLabel(admin: ApiAs, namespace: string): Promise<string> {
  await eventually(() => admin.get('/api/v1/compliance/status'), (r) => r.body.gatekeeper === 'installed', 'Gatekeeper installed', { timeoutMs: 20_000 });
  const name = uniqueName('needs-owner');
  const created = await admin.post('/api/v1/compliance/constraints', {
    name, templateName: 'k8srequiredlabels', enforcementAction: 'dryrun',
    match: { kinds: [{ apiGroups: ['apps'], kinds: ['Deployment'] }], namespaces: [namespace] }, parameters: { labels: [{ key: 'owner' }] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return name;
}

const recordsOf = async (user: ApiAs, constraint: string) =>
  (await user.get<{ items: Record[]; total: number }>(`${HISTORY}?constraint=K8sRequiredLabels/${constraint}`)).body;

describe.each(clusterModes)('acceptance 1, history part (%s cluster)', (mode) => {
  const { ee, admin } = useEnterprise(mode, { manifests, license: issueLicense(), gatekeeper: true });

  it('a dryrun violation is in the history as active for the project\'s members (not others); fixing the instance resolves it', async () => {
    const constraint = await requireOwnerLabel(admin, 'team-h-dev');
    const project = await createProject(ee, 'audited', ['team-h-dev']);
    const alice = await createUser(ee, 'alice');
    const bob = await createUser(ee, 'bob');
    expect((await admin.post(`/api/v1/projects/${project}/roles/developer/users/${alice.username}`)).status).toBe(201);

    const app = uniqueName('app');
    const path = '/api/v1/namespaces/team-h-dev/instances/LabelledApp';
    expect((await alice.post(path, { name: app, project, values: {} })).status).toBe(201);
    const active = await eventually(() => recordsOf(alice, constraint), (b) => b.items.length === 1, 'the violation in the history', { timeoutMs: 15_000 });
    expect(active.items[0]).toMatchObject({ resourceName: app, status: 'active', resolvedAt: null, enforcementAction: 'dryrun' });
    expect(await recordsOf(bob, constraint)).toMatchObject({ total: 0, items: [] });

    expect((await alice.patch(`${path}/${app}`, { spec: { labels: { owner: 'team-h' } } })).status).toBe(200);
    const resolved = await eventually(() => recordsOf(alice, constraint), (b) => b.items[0]?.status === 'resolved', 'the violation resolved', { timeoutMs: 15_000 });
    expect(resolved.total).toBe(1);
    expect(Date.parse(resolved.items[0].resolvedAt!)).toBeGreaterThanOrEqual(Date.parse(resolved.items[0].firstSeen));
    expect(resolved.items[0].firstSeen).toBe(active.items[0].firstSeen);
    expect((await alice.get(`${HISTORY}/count?status=active&constraint=K8sRequiredLabels/${constraint}`)).body).toEqual({ count: 0, retentionDays: 90 });
  }, 60_000);
});

describe('history across two replicas on one database', () => {
  let a: EnterpriseServer;
  let b: EnterpriseServer;
  beforeAll(async () => {
    a = await startEnterpriseServer({ mode: 'embedded', manifests, kv: 'redis', license: issueLicense() });
    b = await startEnterpriseServer({ mode: 'embedded', join: a, kv: 'redis', redisPrefix: a.redisPrefix });
  }, 90_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('both replicas see every change and write it; each episode is one record, and a violation that comes back is a second one', async () => {
    const admin = apiAs(a.url, a.adminToken);
    const constraint = await requireOwnerLabel(admin, 'team-r-dev');
    const project = await createProject(a, 'twice', ['team-r-dev']);
    const app = uniqueName('app');
    const path = '/api/v1/namespaces/team-r-dev/instances/LabelledApp';
    expect((await admin.post(path, { name: app, project, values: {} })).status).toBe(201);
    const onB = apiAs(b.url, b.adminToken);
    await eventually(() => recordsOf(onB, constraint), (r) => r.total === 1, 'recorded', { timeoutMs: 15_000 });
    expect((await admin.patch(`${path}/${app}`, { spec: { labels: { owner: 'x' } } })).status).toBe(200);
    await eventually(() => recordsOf(onB, constraint), (r) => r.items[0]?.status === 'resolved', 'resolved', { timeoutMs: 15_000 });
    expect((await admin.patch(`${path}/${app}`, { spec: { labels: { owner: null } } })).status).toBe(200);
    await eventually(() => recordsOf(admin, constraint), (r) => r.items.some((i) => i.status === 'active'), 'back again', { timeoutMs: 15_000 });
    // Give the slower replica time to write its copies of every change: they must add nothing.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const rows = await a.database.pool.query<{ key: string; status: string }>(
      'SELECT key, status FROM violation_history WHERE constraint_name = $1 ORDER BY id', [constraint],
    );
    expect(rows.rows.map((r) => r.status)).toEqual(['resolved', 'active']);
    expect(new Set(rows.rows.map((r) => r.key)).size).toBe(1);
  }, 60_000);
});
