import * as api from '@portico/api';
import { resources, type KubeObject } from '@portico/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, createProject, createUser, uniqueName, type ApiAs, type Reply } from './support/api-as.js';
import { clusterModes, startPorticoServer, type PorticoServer } from './support/cluster-modes.js';
import { until } from './support/until.js';
import { connect } from './ws/harness.js';

/**
 * Contract §11.1 over HTTP on both cluster adapters: an RGD's revisions (kept in the cluster, numbered the same on
 * every replica), one revision's snapshot, the diff of two, `lastIssuedRevision`, `revision_update` and the
 * `knodex.io/` aliases of the catalog annotations. Every answer is parsed with the contract's schema.
 */
describe.each(clusterModes)('RGD revisions (%s cluster)', (mode) => {
  let tp: PorticoServer;
  let admin: ApiAs;
  let project: string;
  let member: ApiAs & { username: string };
  let outsider: ApiAs & { username: string };
  let replica: PorticoServer | undefined;
  const rgdName = uniqueName('revisioned');

  /** An RGD of the member's project, at a spec of `fields`; kubectl apply creates it or merges into it. */
  const manifest = (fields: Record<string, unknown>, extra: { labels?: Record<string, string>; annotations?: Record<string, string> } = {}): KubeObject => ({
    apiVersion: 'kro.run/v1alpha1',
    kind: 'ResourceGraphDefinition',
    metadata: {
      name: rgdName,
      labels: { 'portico.dev/project': project, ...extra.labels },
      annotations: { 'portico.dev/catalog': 'true', 'portico.dev/updated-by': 'platform-team', ...extra.annotations },
    },
    spec: {
      schema: { apiVersion: 'v1alpha1', kind: 'Revisioned', spec: fields },
      resources: [{ id: 'config', template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '${schema.metadata.name}' }, data: { size: '${schema.spec.size}' } } }],
    },
  });
  const revisionsPath = `/api/v1/rgds/${rgdName}/revisions`;
  const revisionCount = (n: number) => (r: Reply<api.GraphRevisionList>) => r.status === 200 && r.body.totalCount === n;
  const storedRevisions = async () =>
    (await tp.kubectl.list(resources.configMap, { namespace: 'portico', labelSelector: 'portico.dev/record=rgd-revision' })).items.filter(
      (o) => o.data?.rgdName === rgdName,
    );

  beforeAll(async () => {
    tp = await startPorticoServer({ mode });
    admin = apiAs(tp.url, tp.adminToken);
    project = await createProject(tp, 'revs', ['dev']);
    member = await createUser(tp, 'member');
    outsider = await createUser(tp, 'outsider');
    await admin.post(`/api/v1/projects/${project}/roles/viewer/users/${member.username}`);
    await tp.apply(manifest({ size: 'integer | default=1' }));
  });
  afterAll(async () => {
    await replica?.close();
    await tp?.close();
  });

  it('records revision 1, then one per spec change and none for labels or annotations; lastIssuedRevision follows', async () => {
    const first = await until<api.GraphRevisionList>(member, revisionsPath, revisionCount(1), 'revision 1');
    expect(api.GraphRevisionList.parse(first.body).items[0]).toMatchObject({ revisionNumber: 1, rgdName, namespace: '', createdBy: 'platform-team' });

    await tp.apply(manifest({ size: 'integer | default=1' }, { labels: { team: 'a' }, annotations: { 'portico.dev/title': 'Renamed' } }));
    await until(member, `/api/v1/rgds/${rgdName}`, (r) => r.body.title === 'Renamed', 'the retitled RGD');

    const ticket = (await member.post('/api/v1/ws/ticket')).body.ticket;
    const watcher = await connect(`${tp.wsBase}/ws?ticket=${ticket}`);
    const strangerTicket = (await outsider.post('/api/v1/ws/ticket')).body.ticket;
    const stranger = await connect(`${tp.wsBase}/ws?ticket=${strangerTicket}`);
    try {
      for (const socket of [watcher, stranger]) {
        socket.send({ type: 'subscribe', data: { resourceType: 'rgds' } });
        await socket.next((f) => f.type === 'subscribed');
      }
      await tp.apply(manifest({ size: 'integer | default=2', zone: 'string | default=eu' }));
      const frame = await watcher.next((f) => f.type === 'revision_update' && f.data.rgdName === rgdName, 15_000);
      expect(api.ServerMessage.parse(frame)).toMatchObject({ data: { action: 'add', rgdName, revision: 2, projectId: project } });
      const list = api.GraphRevisionList.parse((await until(member, revisionsPath, revisionCount(2), 'revision 2')).body);
      expect(list.items.map((r) => r.revisionNumber)).toEqual([2, 1]);
      expect(list.items[0].contentHash).not.toBe(list.items[1].contentHash);
      const rgd = await until(member, `/api/v1/rgds/${rgdName}`, (r) => r.body.lastIssuedRevision === 2, 'lastIssuedRevision 2');
      expect(api.RgdDetail.parse(rgd.body).lastIssuedRevision).toBe(2);
      const listed = api.RgdList.parse((await member.get('/api/v1/rgds?pageSize=500')).body).items.find((r) => r.name === rgdName);
      expect(listed?.lastIssuedRevision).toBe(2);
      expect(stranger.frames.some((f) => f.type === 'revision_update')).toBe(false);
    } finally {
      watcher.socket.close();
      stranger.socket.close();
    }
    expect((await storedRevisions()).length).toBe(2);
  });

  it('answers one revision with its snapshot, and the diff of two whatever the order', async () => {
    await until(member, revisionsPath, revisionCount(2), 'revision 2');
    const one = await member.get(`${revisionsPath}/1`);
    expect(one.status).toBe(200);
    const detail = api.GraphRevisionDetail.parse(one.body);
    expect(detail).toMatchObject({ revisionNumber: 1, snapshot: { schema: { kind: 'Revisioned', spec: { size: 'integer | default=1' } } } });

    const diff = await member.get(`${revisionsPath}/2/diff/1`);
    expect(diff.status).toBe(200);
    expect(api.RevisionDiff.parse(diff.body)).toEqual({
      rgdName,
      rev1: 1,
      rev2: 2,
      added: [{ path: 'schema.spec.zone', newValue: 'string | default=eu' }],
      removed: [],
      modified: [{ path: 'schema.spec.size', oldValue: 'integer | default=1', newValue: 'integer | default=2' }],
      identical: false,
    });
    expect((await member.get(`${revisionsPath}/1/diff/1`)).body).toMatchObject({ identical: true, added: [], removed: [], modified: [] });
  });

  it('is 400 for a revision that is no number, 404 for one not kept, and 404 for a caller who may not see the RGD', async () => {
    for (const bad of ['abc', '1.5', '-1', '1e3']) {
      for (const path of [`${revisionsPath}/${bad}`, `${revisionsPath}/1/diff/${bad}`, `${revisionsPath}/${bad}/diff/1`]) {
        const reply = await member.get(path);
        expect([reply.status, reply.body.code], path).toEqual([400, 'VALIDATION_FAILED']);
      }
    }
    expect((await member.get(`${revisionsPath}/99`)).body).toMatchObject({ code: 'NOT_FOUND' });
    expect((await member.get(`${revisionsPath}/1/diff/99`)).status).toBe(404);
    for (const path of [revisionsPath, `${revisionsPath}/1`, `${revisionsPath}/1/diff/2`]) {
      expect((await outsider.get(path)).body, path).toMatchObject({ code: 'NOT_FOUND' });
    }
    expect((await member.get('/api/v1/rgds/no-such-rgd/revisions/1')).status).toBe(404);
  });

  it('another replica (or a restart) reads the same numbers from the cluster and records a change once', async () => {
    await until(member, revisionsPath, revisionCount(2), 'revision 2');
    replica = await startPorticoServer({ mode, join: tp, adminPassword: tp.adminPassword });
    const onReplica = apiAs(replica.url, replica.adminToken);
    const same = await until<api.GraphRevisionList>(onReplica, revisionsPath, revisionCount(2), 'the replica\'s revisions');
    expect(same.body).toEqual((await member.get(revisionsPath)).body);

    await tp.apply(manifest({ size: 'integer | default=3', zone: 'string | default=eu' }));
    const third = await until<api.GraphRevisionList>(onReplica, revisionsPath, revisionCount(3), 'revision 3 on the replica');
    await until(member, revisionsPath, (r) => JSON.stringify(r.body) === JSON.stringify(third.body), 'revision 3 here');
    expect((await storedRevisions()).map((o) => o.data?.revisionNumber).sort()).toEqual(['1', '2', '3']);
  });

  it('reads the catalog annotations under knodex.io/ as well, portico.dev/ winning where both are set', async () => {
    const name = uniqueName('knodex');
    await tp.apply({
      apiVersion: 'kro.run/v1alpha1',
      kind: 'ResourceGraphDefinition',
      metadata: {
        name,
        labels: { 'knodex.io/project': project },
        annotations: { 'knodex.io/catalog': 'true', 'knodex.io/title': 'Field title', 'knodex.io/category': 'databases', 'portico.dev/category': 'web', 'knodex.io/tags': 'a,b', 'knodex.io/property-order': 'zone,size' },
      },
      spec: { schema: { apiVersion: 'v1alpha1', kind: 'FieldApp', spec: { size: 'integer', zone: 'string' } }, resources: [] },
    });
    const rgd = await until(member, `/api/v1/rgds/${name}`, (r) => r.status === 200, 'the knodex.io RGD');
    expect(api.RgdDetail.parse(rgd.body)).toMatchObject({ title: 'Field title', category: 'web', tags: ['a', 'b'], labels: { 'knodex.io/project': project } });
    expect((await outsider.get(`/api/v1/rgds/${name}`)).status).toBe(404);
    const form = api.RgdSchemaResponse.parse((await member.get(`/api/v1/rgds/${name}/schema`)).body);
    expect(form.schema.propertyOrder).toEqual(['zone', 'size']);
  });
});
