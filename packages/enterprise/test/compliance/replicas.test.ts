import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, createProject, createUser, uniqueName } from '../../../server/test/support/api-as.js';
import { connect, type Client } from '../../../server/test/ws/harness.js';
import { eventually } from '../../../core/test/support/eventually.js';
import { createConstraint } from '../support/constraints.js';
import { issueLicense } from '../support/license.js';
import { startEnterpriseServer, type EnterpriseServer } from '../support/server.js';

const manifests = [new URL('../../../../examples/catalog', import.meta.url).pathname, new URL('./labelled-app.yaml', import.meta.url).pathname];

describe('violation events across replicas (Redis event bus)', () => {
  let a: EnterpriseServer;
  let b: EnterpriseServer;
  let socket: Client | undefined;
  let adminSocket: Client | undefined;
  beforeAll(async () => {
    a = await startEnterpriseServer({ mode: 'embedded', manifests, kv: 'redis', license: issueLicense() });
    b = await startEnterpriseServer({ mode: 'embedded', join: a, kv: 'redis', redisPrefix: a.redisPrefix });
  }, 90_000);
  afterAll(async () => {
    socket?.socket.close();
    adminSocket?.socket.close();
    await b?.close();
    await a?.close();
  });

  it('a violation caused through replica A reaches a project member on replica B once; constraint events reach policy readers only', async () => {
    const admin = apiAs(a.url, a.adminToken);
    const adminTicket = await apiAs(b.url, b.adminToken).post<{ ticket: string }>('/api/v1/ws/ticket');
    adminSocket = await connect(`${b.wsBase}/ws?ticket=${adminTicket.body.ticket}`);
    adminSocket.send({ type: 'subscribe', data: { resourceType: 'all' } });
    await adminSocket.next((f) => f.type === 'subscribed');
    const name = uniqueName('needs-owner');
    expect((await createConstraint(admin, {
      name, templateName: 'k8srequiredlabels', enforcementAction: 'dryrun',
      match: { kinds: [{ apiGroups: ['apps'], kinds: ['Deployment'] }], namespaces: ['team-a-dev'] }, parameters: { labels: [{ key: 'owner' }] },
    })).status).toBe(201);
    const update = await adminSocket.next((f) => f.type === 'constraint_update' && f.data.name === name, 10_000);
    expect(update.data).toEqual({ action: 'add', kind: 'K8sRequiredLabels', name, enforcementAction: 'dryrun', violationCount: 0 });
    const project = await createProject(a, 'replicated', ['team-a-dev']);
    const carol = await createUser(a, 'carol');
    expect((await admin.post(`/api/v1/projects/${project}/roles/viewer/users/${carol.username}`)).status).toBe(201);
    const onB = apiAs(b.url, carol.token);
    const ticket = await onB.post<{ ticket: string }>('/api/v1/ws/ticket');
    socket = await connect(`${b.wsBase}/ws?ticket=${ticket.body.ticket}`);
    socket.send({ type: 'subscribe', data: { resourceType: 'violations', project } });
    await socket.next((f) => f.type === 'subscribed');

    const app = uniqueName('app');
    expect((await admin.post('/api/v1/namespaces/team-a-dev/instances/LabelledApp', { name: app, project, values: {} })).status).toBe(201);
    const added = await socket.next((f) => f.type === 'violation_update' && f.data.resource.name === app, 15_000);
    expect(added.data).toMatchObject({ action: 'add', constraintName: name, project });
    // Both replicas saw the change; the claim lets one of them publish it.
    await new Promise((r) => setTimeout(r, 500));
    expect(socket.frames.filter((f) => f.type === 'violation_update' && f.data.resource.name === app)).toHaveLength(1);
    // Not a policy reader: no constraint or template events.
    expect(socket.frames.filter((f) => f.type === 'constraint_update' || f.type === 'template_update')).toEqual([]);
    await eventually(() => onB.get(`/api/v1/compliance/violations?project=${project}`), (r) => r.body.total === 1, 'replica B to list it');
  }, 60_000);
});
