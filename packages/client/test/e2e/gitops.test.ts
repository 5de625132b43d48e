import { createClient, loginLocal, type PorticoClient } from '@portico/client';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCloned, startGitServer, type GitServer } from '../../../core/test/support/git-server.js';
import { expectApiError } from './helpers.js';
import { startPorticoServer, type PorticoProcess } from './portico-server.js';

// Issue 39, acceptance 2 through the SDK, against the REAL server (the built bin) and a real Git server on
// loopback: gitops and hybrid deploys push before the answer, to the default path or the one given; a patch is
// a new commit changing the file, a delete one removing it; gitInfo names the commit.
let git: GitServer;
let server: PorticoProcess;
let admin: PorticoClient;
let repositoryId: string;

beforeAll(async () => {
  git = await startGitServer();
  await git.createRepo('sdk');
  server = await startPorticoServer({ env: { PORTICO_GIT_ALLOWED_HOSTS: 'localhost,127.0.0.0/8' } });
  admin = createClient({ baseUrl: server.url, token: (await loginLocal(server.url, 'admin', server.adminPassword)).token });
  const repo = await admin.repositories.create({
    name: 'SDK deploys', projectId: 'default', repoURL: git.httpsUrl('sdk'), authType: 'https',
    httpsAuth: { username: git.username, password: git.password, caCert: git.pki.caCert },
  });
  repositoryId = repo.id;
  expect((await admin.repositories.test(repositoryId)).valid).toBe(true);
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await git?.close();
});

const cloned = async (file: string) => {
  const text = await readCloned(await git.freshClone('sdk', 'main'), file);
  return text === undefined ? undefined : (parse(text) as { metadata: { name: string }; spec: Record<string, unknown> });
};

describe('deploying through a repository with the SDK', { timeout: 60_000 }, () => {
  it('gitops at the default path: the commit is on the remote before the answer, nothing in the cluster', async () => {
    const created = await admin.instances.create({ kind: 'WebApp', namespace: 'dev', name: 'sdk-gitops', project: 'default', values: { image: 'nginx:1.27' }, deploymentMode: 'gitops', repositoryId });
    const path = 'default/dev/WebApp/sdk-gitops.yaml';
    expect(created.gitInfo).toMatchObject({ repositoryId, branch: 'main', path, commitSha: (await git.lastCommit('sdk', 'main')).sha, pushStatus: 'success' });
    expect((await git.lastCommit('sdk', 'main')).subject).toBe('Create WebApp dev/sdk-gitops in project default');
    expect((await cloned(path))?.metadata.name).toBe('sdk-gitops');
    // Not in the cluster until a controller applies it.
    await expectApiError(admin.instances.get({ kind: 'WebApp', namespace: 'dev', name: 'sdk-gitops' }), 404, 'NOT_FOUND');
  });

  it('hybrid at a given path: the object and the commit; a patch and a delete change both', async () => {
    const ref = { kind: 'WebApp', namespace: 'dev', name: 'sdk-hybrid' };
    const path = 'services/sdk-hybrid.yaml';
    const created = await admin.instances.create({ ...ref, project: 'default', values: { image: 'nginx:1.27' }, deploymentMode: 'hybrid', repositoryId, gitPath: path });
    expect(created.gitInfo).toMatchObject({ path, commitSha: (await git.lastCommit('sdk', 'main')).sha });
    expect((await admin.instances.get(ref)).gitInfo?.commitSha).toBe(created.gitInfo?.commitSha);

    const patched = await admin.instances.patch(ref, { replicas: 4 });
    const update = await git.lastCommit('sdk', 'main');
    expect(update.subject).toBe('Update WebApp dev/sdk-hybrid in project default');
    expect(patched.gitInfo?.commitSha).toBe(update.sha);
    expect((await cloned(path))?.spec.replicas).toBe(4);

    await admin.instances.delete(ref);
    expect((await git.lastCommit('sdk', 'main')).subject).toBe('Delete WebApp dev/sdk-hybrid in project default');
    expect(await cloned(path)).toBeUndefined();
  });

  it('a repository in use cannot be deleted (409)', async () => {
    await admin.instances.create({ kind: 'WebApp', namespace: 'dev', name: 'sdk-pin', project: 'default', values: { image: 'nginx:1.27' }, deploymentMode: 'hybrid', repositoryId });
    await expectApiError(admin.repositories.delete(repositoryId), 409, 'CONFLICT');
  });
});
