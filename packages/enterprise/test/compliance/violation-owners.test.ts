import { afterAll, describe, expect, it } from 'vitest';
import { createUser, uniqueName, type ApiAs, type TestUser } from '../../../server/test/support/api-as.js';
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

/** A project with exactly these roles (each bound to its users), as the admin. */
async function projectWithRoles(admin: ApiAs, name: string, namespaces: string[], roles: { name: string; policies: string[]; users: TestUser[] }[]) {
  const res = await admin.post('/api/v1/projects', {
    name, destinations: namespaces.map((namespace) => ({ namespace })),
    roles: roles.map((r) => ({ name: r.name, policies: r.policies, users: r.users.map((u) => u.username) })),
  });
  if (res.status !== 201) throw new Error(`creating project ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return name;
}

const viewer = ['instances/*, get, allow', 'rgds/*, get, allow'];
const ownerRequired = (name: string, namespaces: string[], kinds = [{ apiGroups: ['apps'], kinds: ['Deployment'] }]) => ({
  name, templateName: 'k8srequiredlabels', enforcementAction: 'dryrun', match: { kinds, namespaces }, parameters: { labels: [{ key: 'owner' }] },
});

describe.each(clusterModes)('violations belong to the instance they were found on (%s cluster)', (mode) => {
  const { ee, admin } = useEnterprise(mode, { manifests: [catalog, categoryCrd, labelledApp], license: issueLicense(), gatekeeper: true });
  const sockets: Client[] = [];
  afterAll(() => sockets.forEach((s) => s.socket.close()));

  // §12.5: by the instance's portico.dev/project label (a child resource: its instance's), not by the first project
  // whose destinations list the namespace. Both projects list the same namespace; "aaa…" sorts first and would
  // have taken every violation there.
  it('two projects sharing a namespace: each member sees only their own instance\'s violations, of the instance and of its children', async () => {
    await eventually(() => admin.get('/api/v1/compliance/status'), (r) => r.body.gatekeeper === 'installed', 'Gatekeeper installed', { timeoutMs: 20_000 });
    const shared = uniqueName('shared');
    const [alice, bob] = [await createUser(ee, 'alice'), await createUser(ee, 'bob')];
    const first = await projectWithRoles(admin, uniqueName('aaa'), [shared], [{ name: 'viewer', policies: viewer, users: [alice] }]);
    const second = await projectWithRoles(admin, uniqueName('zzz'), [shared], [{ name: 'viewer', policies: viewer, users: [bob] }]);
    const children = uniqueName('child-owner');
    const instances = uniqueName('instance-owner');
    expect((await createConstraint(admin, ownerRequired(children, [shared]))).status).toBe(201);
    expect((await createConstraint(admin, ownerRequired(instances, [shared], [{ apiGroups: ['kro.run'], kinds: ['LabelledApp'] }]))).status).toBe(201);
    const [appA, appB] = [uniqueName('app-a'), uniqueName('app-b')];
    for (const [name, project] of [[appA, first], [appB, second]]) {
      const made = await admin.post(`/api/v1/namespaces/${shared}/instances/LabelledApp`, { name, project, values: {} });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
    }
    const seen = (user: ApiAs) => user.get(`/api/v1/compliance/violations?pageSize=500`).then((r) =>
      (r.body.items as { constraintName: string; resource: { kind: string; name: string }; project?: string }[])
        .filter((v) => v.constraintName === children || v.constraintName === instances)
        .map((v) => `${v.resource.kind}/${v.resource.name} ${v.project}`)
        .sort(),
    );
    const all = await eventually(() => seen(admin), (v) => v.length === 4, 'the audit to report both instances and both Deployments', { timeoutMs: 20_000 });
    expect(all).toEqual([`Deployment/${appA} ${first}`, `Deployment/${appB} ${second}`, `LabelledApp/${appA} ${first}`, `LabelledApp/${appB} ${second}`].sort());
    expect(await seen(alice)).toEqual([`Deployment/${appA} ${first}`, `LabelledApp/${appA} ${first}`]);
    expect(await seen(bob)).toEqual([`Deployment/${appB} ${second}`, `LabelledApp/${appB} ${second}`]);
    expect((await bob.get(`/api/v1/compliance/violations?project=${first}`)).body).toMatchObject({ items: [], total: 0 });
  }, 60_000);

  // A role that reads the whole project (`instances/*, get, allow`) plus a deny on one instance: neither that
  // instance's instance_update events nor its violation_update events reach the member's socket.
  it('a deny on one instance keeps its instance and violation events off a project reader\'s socket', async () => {
    const ns = uniqueName('ws');
    const carol = await createUser(ee, 'carol');
    const hidden = uniqueName('hidden');
    const shown = uniqueName('shown');
    const project = await projectWithRoles(admin, uniqueName('ws'), [ns], [
      { name: 'reader', policies: [...viewer, `instances/${ns}/LabelledApp/${hidden}, get, deny`], users: [carol] },
    ]);
    expect((await createConstraint(admin, ownerRequired(uniqueName('ws-owner'), [ns]))).status).toBe(201);
    const carolSocket = await socketOf(ee, carol, 'all');
    const adminSocket = await socketOf(ee, admin, 'all');
    sockets.push(carolSocket, adminSocket);

    for (const name of [hidden, shown]) {
      const made = await admin.post(`/api/v1/namespaces/${ns}/instances/LabelledApp`, { name, project, values: {} });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
    }
    const violationOf = (name: string) => (f: { type: string; data: any }) => f.type === 'violation_update' && f.data.resource?.name === name && f.data.action === 'add';
    // Both were published (the admin receives both), and the reader receives the one they may see.
    await adminSocket.next(violationOf(hidden), 20_000);
    await adminSocket.next(violationOf(shown), 20_000);
    await carolSocket.next(violationOf(shown), 20_000);
    await carolSocket.next((f) => f.type === 'instance_update' && f.data.name === shown, 20_000);
    expect((await carol.get(`/api/v1/namespaces/${ns}/instances/LabelledApp/${hidden}`)).status).toBe(404);
    // Events come in order per socket: a marker sent after both instances' changes has reached carol last.
    const marker = uniqueName('marker');
    expect((await admin.post(`/api/v1/namespaces/${ns}/instances/LabelledApp`, { name: marker, project, values: { labels: { owner: 'x' } } })).status).toBe(201);
    await carolSocket.next((f) => f.type === 'instance_update' && f.data.name === marker, 20_000);
    const aboutHidden = carolSocket.frames.filter((f) => JSON.stringify(f.data ?? {}).includes(hidden));
    expect(aboutHidden).toEqual([]);
    expect(adminSocket.frames.some((f) => f.type === 'instance_update' && f.data.name === hidden)).toBe(true);
    // The list agrees with the socket.
    const listed = await carol.get(`/api/v1/compliance/violations?project=${project}`);
    expect(listed.body.items.map((v: { resource: { name: string } }) => v.resource.name)).toEqual([shown]);
  }, 60_000);
});
