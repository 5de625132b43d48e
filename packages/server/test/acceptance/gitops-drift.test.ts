import * as api from '@portico/api';
import { stringify, parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../core/test/support/eventually.js';
import { startGitServer, type GitServer } from '../../../core/test/support/git-server.js';
import { apiAs, createUser, uniqueName, type ApiAs, type TestUser } from '../support/api-as.js';
import { startPorticoServer, type PorticoServer } from '../support/cluster-modes.js';
import { connect, type Client } from '../ws/harness.js';

// Issue 39, acceptance 5: the spec of a Git-mode instance changed in the cluster directly (through the Cluster
// port, as kubectl would) shows as drift within the period (`gitopsDrift: true`, `desiredSpec`, `driftedAt`), a
// member's socket gets `drift_update {drifted: true}`, and restoring the spec sends `drifted: false`. A change
// made in Git instead is found by the periodic comparison. Another project's member hears nothing.
describe('drift between the cluster and Git (kubernetes cluster)', () => {
  const ns = 'dev';
  const webapps = { group: 'kro.run', version: 'v1alpha1', kind: 'WebApp', plural: 'webapps', namespaced: true };
  let git: GitServer;
  let server: PorticoServer;
  let admin: ApiAs;
  let member: TestUser;
  let stranger: TestUser;
  let project: string;
  let repositoryId: string;
  let memberSocket: Client;
  let strangerSocket: Client;

  beforeAll(async () => {
    git = await startGitServer();
    await git.createRepo('drift');
    // The period is a setting: a second here instead of a minute, so the periodic comparison shows in a test.
    server = await startPorticoServer({ mode: 'kubernetes', env: { PORTICO_GIT_ALLOWED_HOSTS: 'localhost,127.0.0.0/8', PORTICO_GITOPS_DRIFT_INTERVAL_MS: '1000' } });
    admin = apiAs(server.url, server.adminToken);
    [member, stranger] = await Promise.all([createUser(server, 'member'), createUser(server, 'stranger')]);
    project = uniqueName('drift');
    const roles = [{ name: 'developer', policies: ['instances/*, *, allow'], users: [member.username] }];
    expect((await admin.post('/api/v1/projects', { name: project, destinations: [{ namespace: ns }], roles })).status).toBe(201);
    const other = uniqueName('elsewhere');
    expect((await admin.post('/api/v1/projects', { name: other, destinations: [{ namespace: ns }], roles: [{ name: 'developer', policies: ['instances/*, *, allow'], users: [stranger.username] }] })).status).toBe(201);
    const repo = await admin.post('/api/v1/repositories', { name: 'Drift', projectId: project, repoURL: git.httpsUrl('drift'), authType: 'https', httpsAuth: { bearerToken: git.token, caCert: git.pki.caCert } });
    repositoryId = api.RepoInfo.parse(repo.body).id;
    const socketOf = async (user: TestUser, subscribed: string) => {
      const socket = await connect(`${server.wsBase}/ws?ticket=${(await user.post('/api/v1/ws/ticket')).body.ticket}`);
      socket.send({ type: 'subscribe', data: { resourceType: 'instances', project: subscribed } });
      await socket.next((f) => f.type === 'subscribed');
      return socket;
    };
    memberSocket = await socketOf(member, project);
    strangerSocket = await socketOf(stranger, other);
  }, 90_000);
  afterAll(async () => {
    memberSocket?.socket.close();
    strangerSocket?.socket.close();
    await server?.close();
    await git?.close();
  });

  const driftFrames = (socket: Client, name: string) => socket.frames.filter((f) => f.type === 'drift_update' && (f.data as api.DriftUpdate).name === name).map((f) => f.data as api.DriftUpdate);
  const read = async (name: string) => api.Instance.parse((await member.get(`/api/v1/namespaces/${ns}/instances/WebApp/${name}`)).body);

  it('a spec changed in the cluster is drift with the spec in Git; restoring it ends the drift; both reach a member', async () => {
    const name = uniqueName('shop');
    const created = await admin.post(`/api/v1/namespaces/${ns}/instances/WebApp`, { name, project, values: { image: 'nginx:1.27' }, deploymentMode: 'hybrid', repositoryId });
    expect(created.status).toBe(201);
    const inGit = api.Instance.parse(created.body).spec;
    expect((await read(name)).gitopsDrift).toBe(false);

    // kubectl edit: through the Cluster port, not through Portico.
    await server.kubectl.patch(webapps, name, { spec: { image: 'nginx:9.9-hotfix' } }, { namespace: ns });
    const drifted = await eventually(() => read(name), (i) => i.gitopsDrift === true, 'the drift to show');
    expect(drifted.desiredSpec).toEqual(inGit);
    expect(drifted.spec.image).toBe('nginx:9.9-hotfix');
    expect(Date.parse(drifted.driftedAt!)).toBeGreaterThan(Date.now() - 60_000);
    await memberSocket.next((f) => f.type === 'drift_update' && (f.data as api.DriftUpdate).name === name && (f.data as api.DriftUpdate).drifted);
    expect(driftFrames(memberSocket, name)[0]).toEqual({ namespace: ns, kind: 'WebApp', name, drifted: true, projectId: project });

    await server.kubectl.patch(webapps, name, { spec: { image: 'nginx:1.27' } }, { namespace: ns });
    const restored = await eventually(() => read(name), (i) => i.gitopsDrift === false, 'the drift to end');
    expect(restored.desiredSpec).toBeUndefined();
    expect(restored.driftedAt).toBeUndefined();
    await memberSocket.next((f) => f.type === 'drift_update' && (f.data as api.DriftUpdate).name === name && !(f.data as api.DriftUpdate).drifted);
    expect(driftFrames(memberSocket, name).map((d) => d.drifted)).toEqual([true, false]);
    expect(driftFrames(strangerSocket, name)).toEqual([]);
  });

  it('a change pushed to Git by someone else is found by the periodic comparison, without any change in the cluster', async () => {
    const name = uniqueName('git-side');
    expect((await admin.post(`/api/v1/namespaces/${ns}/instances/WebApp`, { name, project, values: { image: 'nginx:1.27' }, deploymentMode: 'hybrid', repositoryId })).status).toBe(201);
    const path = `${project}/${ns}/WebApp/${name}.yaml`;
    const manifest = parse((await git.fileAt('drift', 'main', path))!) as { spec: Record<string, unknown> };
    const outside = await git.outsideCommit('drift', 'main', path, stringify({ ...manifest, spec: { ...manifest.spec, replicas: 5 } }), 'Scale up in Git');
    const drifted = await eventually(() => read(name), (i) => i.gitopsDrift === true, 'the periodic comparison to find the Git change');
    expect(drifted.desiredSpec).toMatchObject({ replicas: 5 });
    // The object now names the commit that changed its file.
    expect(drifted.gitInfo?.commitSha).toBe(outside);
  });

  it('a gitops instance applied by a controller is compared too, and names its commit', async () => {
    const name = uniqueName('applied');
    const created = await admin.post(`/api/v1/namespaces/${ns}/instances/WebApp`, { name, project, values: { image: 'nginx:1.27' }, deploymentMode: 'gitops', repositoryId });
    const sha = created.body.gitInfo.commitSha as string;
    const manifest = parse((await git.fileAt('drift', 'main', `${project}/${ns}/WebApp/${name}.yaml`))!);
    await server.apply(manifest);
    const applied = await eventually(() => member.get(`/api/v1/namespaces/${ns}/instances/WebApp/${name}`), (r) => r.status === 200 && r.body.gitInfo?.commitSha === sha, 'the applied instance to name its commit');
    expect(applied.body.gitopsDrift).toBe(false);
  });

  it('the moment between a hybrid write and its push (git-pending on the object) is not drift; once the mark goes, it is', async () => {
    const name = uniqueName('pending');
    expect((await admin.post(`/api/v1/namespaces/${ns}/instances/WebApp`, { name, project, values: { image: 'nginx:1.27' }, deploymentMode: 'hybrid', repositoryId })).status).toBe(201);
    await server.kubectl.patch(webapps, name, { metadata: { annotations: { 'portico.dev/git-pending': new Date().toISOString() } }, spec: { image: 'nginx:2.0' } }, { namespace: ns });
    // Two periods pass: compared, and not called drift while the push is under way.
    await new Promise((r) => setTimeout(r, 2500));
    expect((await read(name)).gitopsDrift).toBe(false);
    await server.kubectl.patch(webapps, name, { metadata: { annotations: { 'portico.dev/git-pending': null } } }, { namespace: ns });
    expect((await eventually(() => read(name), (i) => i.gitopsDrift === true, 'the drift once nothing is pending')).desiredSpec).toMatchObject({ image: 'nginx:1.27' });
  });
});
