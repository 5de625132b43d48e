import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as api from '@portico/api';
import { resources, type Operation } from '@portico/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, createUser, uniqueName, type ApiAs, type TestUser } from '../support/api-as.js';
import { clusterModes, startPorticoServer, useServer, type PorticoServer } from '../support/cluster-modes.js';
import { capturedLogger } from '../support/captured-logger.js';

// Issue 39, step 1 (contract §13): repositories per project, kept in the cluster (so every replica sees them),
// their credentials in one Secret each and in no answer, no log line and no project's secret list.
const NS = 'portico';
/** TEST-NET-3: a public-looking address no test ever connects to (registering does not contact the remote). */
const REMOTE = 'https://203.0.113.10/platform/deploys.git';
const SECRET_PASSWORD = 'pw-9f3c1e7a-never-shown';
const SECRET_KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA-never-shown\n-----END OPENSSH PRIVATE KEY-----\n';

describe.each(clusterModes)('repositories (%s cluster)', (mode) => {
  let a: PorticoServer;
  let b: PorticoServer;
  let admin: ApiAs;
  let adminB: ApiAs;
  const { logger, lines: logLines } = capturedLogger();
  const operations: Operation[] = [];
  let project: string;
  let other: string;
  let reader: TestUser;
  let writer: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    const hooks = [(operation: Operation, run: () => Promise<unknown>) => (operations.push(operation), run())] as never;
    a = await startPorticoServer({ mode, logger, hooks });
    b = await startPorticoServer({ mode, logger, hooks, join: a, adminPassword: a.adminPassword });
    admin = apiAs(a.url, a.adminToken);
    adminB = apiAs(b.url, b.adminToken);
    [reader, writer, outsider] = await Promise.all([createUser(a, 'reader'), createUser(a, 'writer'), createUser(a, 'outsider')]);
    project = uniqueName('repos');
    other = uniqueName('other');
    const roles = [
      { name: 'viewer', policies: [`p, proj:${project}:viewer, repositories, get, ${project}/*, allow`], users: [reader.username] },
      { name: 'platform', policies: [`p, proj:${project}:platform, repositories, *, ${project}/*, allow`], users: [writer.username] },
      { name: 'developer', policies: ['instances/*, *, allow'], users: [outsider.username] },
    ];
    expect((await admin.post('/api/v1/projects', { name: project, destinations: [{ namespace: 'dev' }], roles })).status).toBe(201);
    expect((await admin.post('/api/v1/projects', { name: other, destinations: [{ namespace: 'dev' }] })).status).toBe(201);
  }, 90_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const httpsRepo = (over: Record<string, unknown> = {}) => ({
    name: 'Deploys', projectId: project, repoURL: REMOTE, authType: 'https', defaultBranch: 'main',
    httpsAuth: { username: 'deployer', password: SECRET_PASSWORD }, ...over,
  });

  it('registers a repository: 201 with RepoInfo, the credentials in one Secret of Portico\'s namespace and in no answer', async () => {
    const created = await writer.post('/api/v1/repositories', httpsRepo());
    expect(created.status).toBe(201);
    const info = api.RepoInfo.strict().parse(created.body);
    expect(info).toMatchObject({ projectId: project, name: 'Deploys', repoURL: REMOTE, authType: 'https', defaultBranch: 'main', createdBy: writer.username, validationStatus: 'unknown' });
    expect(info.id).toMatch(/^repo-[a-z0-9]+$/);
    expect(JSON.stringify(created.body)).not.toContain(SECRET_PASSWORD);

    const secret = await a.kubectl.get(resources.secret, `portico-${info.id}`, NS);
    expect(Buffer.from(secret!.data!.password!, 'base64').toString()).toBe(SECRET_PASSWORD);
    const configMap = await a.kubectl.get(resources.configMap, `portico-${info.id}`, NS);
    expect(JSON.stringify(configMap)).not.toContain(SECRET_PASSWORD);

    // The other replica answers from the same cluster at once; the project's Secrets list never shows the credentials.
    expect((await adminB.get(`/api/v1/repositories/${info.id}`)).body).toEqual(info);
    const secrets = await admin.get(`/api/v1/projects/${project}/secrets`);
    expect(JSON.stringify(secrets.body)).not.toContain(`portico-${info.id}`);
  });

  it('lists per visibility: the project\'s readers see its repositories, other projects\' stay hidden, outsiders see none', async () => {
    const mine = api.RepoInfo.parse((await writer.post('/api/v1/repositories', httpsRepo({ name: 'Listed' }))).body);
    const theirs = api.RepoInfo.parse((await admin.post('/api/v1/repositories', httpsRepo({ name: 'Elsewhere', projectId: other }))).body);
    const seen = async (user: ApiAs, query = '') => api.RepositoryList.parse((await user.get(`/api/v1/repositories${query}`)).body).items.map((r) => r.id);

    expect(await seen(reader)).toContain(mine.id);
    expect(await seen(reader)).not.toContain(theirs.id);
    expect(await seen(admin, `?projectId=${other}`)).toEqual([theirs.id]);
    expect(await seen(outsider)).toEqual([]);
    expect((await reader.get(`/api/v1/repositories/${theirs.id}`)).status).toBe(404);
    expect((await outsider.get(`/api/v1/repositories/${mine.id}`)).status).toBe(404);
    const list = api.RepositoryList.parse((await admin.get('/api/v1/repositories')).body);
    expect(list.totalCount).toBe(list.items.length);
  });

  it('only a role with create on the project\'s repositories registers one; a missing project is 404 for a Server Admin', async () => {
    expect((await reader.post('/api/v1/repositories', httpsRepo())).status).toBe(403);
    expect((await outsider.post('/api/v1/repositories', httpsRepo())).status).toBe(403);
    expect((await writer.post('/api/v1/repositories', httpsRepo({ projectId: other }))).status).toBe(403);
    expect((await admin.post('/api/v1/repositories', httpsRepo({ projectId: uniqueName('absent') }))).status).toBe(404);
  });

  it('refuses github-app, insecureSkipTLSVerify, a wrong scheme and mismatched credentials with 400 naming the field', async () => {
    const refused = async (body: Record<string, unknown>, field: string) => {
      const res = await writer.post('/api/v1/repositories', body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(Object.keys(res.body.details.fields)).toContain(field);
      expect(JSON.stringify(res.body)).not.toContain(SECRET_PASSWORD);
    };
    await refused(httpsRepo({ authType: 'github-app' }), 'authType');
    await refused(httpsRepo({ insecureSkipTLSVerify: true }), 'insecureSkipTLSVerify');
    await refused(httpsRepo({ repoURL: 'http://203.0.113.10/deploys.git' }), 'repoURL');
    await refused(httpsRepo({ repoURL: 'https://deployer:secret@203.0.113.10/deploys.git' }), 'repoURL');
    await refused(httpsRepo({ repoURL: 'git@203.0.113.10:platform/deploys.git' }), 'repoURL');
    await refused(httpsRepo({ name: 'ab' }), 'name');
    await refused(httpsRepo({ sshAuth: { privateKey: SECRET_KEY } }), 'sshAuth');
    await refused(httpsRepo({ authType: 'ssh', repoURL: 'git@203.0.113.10:platform/deploys.git', httpsAuth: undefined }), 'sshAuth');
    await refused(httpsRepo({ defaultBranch: 'bad..branch' }), 'defaultBranch');
  });

  it('PATCH changes any subset and replaces credentials only when sent; it cannot move a repository to another project', async () => {
    const repo = api.RepoInfo.parse((await writer.post('/api/v1/repositories', httpsRepo({ name: 'Patched' }))).body);
    const stored = async () => (await a.kubectl.get(resources.secret, `portico-${repo.id}`, NS))!.data ?? {};

    const renamed = await writer.patch(`/api/v1/repositories/${repo.id}`, { name: 'Patched again', defaultBranch: 'release' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Patched again', defaultBranch: 'release', repoURL: REMOTE, updatedBy: writer.username });
    expect(Buffer.from((await stored()).password!, 'base64').toString()).toBe(SECRET_PASSWORD);

    expect((await writer.patch(`/api/v1/repositories/${repo.id}`, { httpsAuth: { bearerToken: 'tok-replacement' } })).status).toBe(200);
    const replaced = await stored();
    expect(replaced.password).toBeUndefined();
    expect(Buffer.from(replaced.bearerToken!, 'base64').toString()).toBe('tok-replacement');

    const moved = await writer.patch(`/api/v1/repositories/${repo.id}`, { projectId: other });
    expect(moved.status).toBe(400);
    expect(moved.body.details.fields).toHaveProperty('projectId');
    expect((await reader.patch(`/api/v1/repositories/${repo.id}`, { name: 'Not allowed' })).status).toBe(403);

    // To SSH: the key is required, the HTTPS credentials go.
    expect((await writer.patch(`/api/v1/repositories/${repo.id}`, { authType: 'ssh', repoURL: 'ssh://git@203.0.113.10/platform/deploys.git' })).status).toBe(400);
    const toSsh = await writer.patch(`/api/v1/repositories/${repo.id}`, { authType: 'ssh', repoURL: 'ssh://git@203.0.113.10/platform/deploys.git', sshAuth: { privateKey: SECRET_KEY } });
    expect(toSsh.status).toBe(200);
    expect(toSsh.body.authType).toBe('ssh');
    expect(Object.keys(await stored()).sort()).toEqual(['sshPrivateKey']);
  });

  it('DELETE removes the repository and its Secret on every replica', async () => {
    const repo = api.RepoInfo.parse((await writer.post('/api/v1/repositories', httpsRepo({ name: 'Doomed' }))).body);
    expect((await reader.del(`/api/v1/repositories/${repo.id}`)).status).toBe(403);
    expect((await writer.del(`/api/v1/repositories/${repo.id}`)).status).toBe(204);
    expect((await adminB.get(`/api/v1/repositories/${repo.id}`)).status).toBe(404);
    expect(await a.kubectl.get(resources.secret, `portico-${repo.id}`, NS)).toBeUndefined();
    expect((await writer.del(`/api/v1/repositories/${repo.id}`)).status).toBe(404);
  });

  it('a deleted project takes its repositories with it', async () => {
    const doomed = uniqueName('gone');
    expect((await admin.post('/api/v1/projects', { name: doomed, destinations: [{ namespace: 'dev' }] })).status).toBe(201);
    const repo = api.RepoInfo.parse((await admin.post('/api/v1/repositories', httpsRepo({ projectId: doomed }))).body);
    expect((await admin.del(`/api/v1/projects/${doomed}`)).status).toBe(204);
    expect(await a.kubectl.get(resources.configMap, `portico-${repo.id}`, NS)).toBeUndefined();
    expect(await a.kubectl.get(resources.secret, `portico-${repo.id}`, NS)).toBeUndefined();
  });

  it('records each change as an operation with the credentials marked secret, and logs no credential', async () => {
    const created = operations.filter((o) => o.id === 'repositories.create');
    expect(created.length).toBeGreaterThan(0);
    for (const o of operations.filter((o) => o.id.startsWith('repositories.'))) {
      expect(o.secretFields).toEqual(o.id === 'repositories.delete' ? [] : ['httpsAuth', 'sshAuth']);
      expect(o.resource).toBe('repositories');
    }
    expect(created.every((o) => o.project !== undefined)).toBe(true);
    const logs = logLines.join('');
    expect(logs).toContain('repository registered');
    expect(logs).not.toContain(SECRET_PASSWORD);
    expect(logs).not.toContain('never-shown');
  });
});

describe('the development repository (PORTICO_GITOPS_REPO, embedded cluster)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'portico-dev-repo-'));
  const { tp, admin } = useServer('embedded', { env: { PORTICO_GITOPS_REPO: dir } });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is shown as the repository `local` of every project, tests valid, and cannot be changed through the API', async () => {
    const project = uniqueName('devrepo');
    expect((await admin.post('/api/v1/projects', { name: project, destinations: [{ namespace: 'dev' }] })).status).toBe(201);
    const listed = api.RepositoryList.parse((await admin.get(`/api/v1/repositories?projectId=${project}`)).body);
    expect(listed.items).toEqual([expect.objectContaining({ id: 'local', projectId: project, authType: 'local', repoURL: `file://${dir}` })]);
    expect(api.RepositoryList.parse((await admin.get('/api/v1/repositories')).body).items.filter((r) => r.id === 'local').map((r) => r.projectId)).toContain(project);
    expect((await admin.get('/api/v1/repositories/local')).body.id).toBe('local');
    expect((await admin.post('/api/v1/repositories/local/test')).body).toMatchObject({ valid: true });
    expect((await admin.patch('/api/v1/repositories/local', { name: 'Renamed' })).status).toBe(409);
    expect((await admin.del('/api/v1/repositories/local')).status).toBe(409);
    // A user who may not read the project's repositories does not see it.
    const nobody = await createUser(tp, 'nobody');
    expect(api.RepositoryList.parse((await nobody.get('/api/v1/repositories')).body).items).toEqual([]);
    expect((await nobody.get('/api/v1/repositories/local')).status).toBe(404);
  });
});
