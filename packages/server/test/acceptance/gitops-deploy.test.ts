import * as api from '@portico/api';
import { resources } from '@portico/core';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../core/test/support/eventually.js';
import { readCloned, startGitServer, type GitServer } from '../../../core/test/support/git-server.js';
import { apiAs, uniqueName, type ApiAs } from '../support/api-as.js';
import { startPorticoServer, type PorticoServer } from '../support/cluster-modes.js';

// Issue 39, acceptance 2 and 4 through the API: deploying in `gitops` and `hybrid` mode through a project's
// repository pushes a commit before the answer (a fresh clone has the manifest at the default path or the given
// one, with the commit subject of §13); a patch changes the file in a new commit, a delete removes it; a remote
// that is down or refuses the push answers 502 GITOPS_ERROR and nothing changes in the cluster or in Git.
describe('deploying through a repository (kubernetes cluster)', () => {
  let git: GitServer;
  let server: PorticoServer;
  let admin: ApiAs;
  let project: string;
  let repo: api.RepoInfo;
  const ns = 'dev';
  const base = `/api/v1/namespaces/${ns}/instances/WebApp`;

  beforeAll(async () => {
    git = await startGitServer();
    await git.createRepo('deploys');
    await git.outsideCommit('deploys', 'release', 'README.md', '# release\n', 'Start the release branch');
    server = await startPorticoServer({ mode: 'kubernetes', env: { PORTICO_GIT_ALLOWED_HOSTS: 'localhost,127.0.0.0/8' } });
    admin = apiAs(server.url, server.adminToken);
    project = uniqueName('gitops');
    expect((await admin.post('/api/v1/projects', { name: project, destinations: [{ namespace: ns }] })).status).toBe(201);
    const created = await admin.post('/api/v1/repositories', {
      name: 'Deploys', projectId: project, repoURL: git.httpsUrl('deploys'), authType: 'https',
      httpsAuth: { username: git.username, password: git.password, caCert: git.pki.caCert },
    });
    expect(created.status).toBe(201);
    repo = api.RepoInfo.parse(created.body);
  }, 90_000);
  afterAll(async () => {
    await server?.close();
    await git?.close();
  });

  const deploy = (name: string, over: Record<string, unknown> = {}) =>
    admin.post(base, { name, project, values: { image: 'nginx:1.27' }, deploymentMode: 'gitops', repositoryId: repo.id, ...over });
  const defaultPath = (name: string) => `${project}/${ns}/WebApp/${name}.yaml`;
  const cloned = async (file: string, branch = 'main') => {
    const text = await readCloned(await git.freshClone('deploys', branch), file);
    return text === undefined ? undefined : (parse(text) as { kind: string; metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string> }; spec: Record<string, unknown> });
  };
  const object = (name: string) => server.kubectl.get({ ...resources.rgd, group: 'kro.run', version: 'v1alpha1', kind: 'WebApp', plural: 'webapps', namespaced: true }, name, ns);

  it('gitops: the commit is on the remote before the answer, at the default path, with the subject of §13; the instance names it', async () => {
    const name = uniqueName('shop');
    const res = await deploy(name);
    expect(res.status).toBe(201);
    const instance = api.Instance.parse(res.body);
    const last = await git.lastCommit('deploys', 'main');
    expect(instance.gitInfo).toEqual({
      repositoryId: repo.id, repositoryUrl: repo.repoURL, branch: 'main', path: defaultPath(name), commitSha: last.sha,
      commitUrl: `https://localhost:${git.https.port}/deploys/commit/${last.sha}`, pushStatus: 'success',
    });
    expect(instance.gitopsDrift).toBe(false);
    expect(last).toMatchObject({ author: 'Portico <portico@localhost>', subject: `Create WebApp ${ns}/${name} in project ${project}`, body: 'Requested by user:admin through Portico.' });
    const manifest = await cloned(defaultPath(name));
    expect(manifest).toMatchObject({ kind: 'WebApp', metadata: { name, labels: { 'portico.dev/project': project, 'portico.dev/deployment-mode': 'gitops', 'portico.dev/repository-id': repo.id } }, spec: { image: 'nginx:1.27' } });
    expect(manifest!.metadata.annotations).toMatchObject({ 'portico.dev/git-branch': 'main', 'portico.dev/git-path': defaultPath(name) });
    expect(await object(name)).toBeUndefined();
    // The name is taken in Git: a second create is 409 and pushes nothing.
    expect((await deploy(name)).status).toBe(409);
    expect((await git.lastCommit('deploys', 'main')).sha).toBe(last.sha);
  });

  it('gitops: a given branch and path are used as they are; once a controller applies it, patch and delete are commits', async () => {
    const name = uniqueName('custom');
    const path = `apps/${name}/webapp.yaml`;
    const res = await deploy(name, { gitBranch: 'release', gitPath: path });
    expect(res.status).toBe(201);
    expect(res.body.gitInfo).toMatchObject({ branch: 'release', path });
    const manifest = await cloned(path, 'release');
    expect(manifest?.metadata.name).toBe(name);
    expect(await cloned(defaultPath(name), 'release')).toBeUndefined();

    // What Argo CD or Flux would do: apply the manifest of the commit.
    await server.apply(manifest as never);
    await eventually(() => admin.get(`${base}/${name}`), (r) => r.status === 200, 'the applied instance to be indexed');
    const patched = await admin.patch(`${base}/${name}`, { spec: { image: 'nginx:1.28' } });
    expect(patched.status).toBe(200);
    const afterPatch = await git.lastCommit('deploys', 'release');
    expect(afterPatch.subject).toBe(`Update WebApp ${ns}/${name} in project ${project}`);
    expect(patched.body.gitInfo.commitSha).toBe(afterPatch.sha);
    expect((await cloned(path, 'release'))?.spec.image).toBe('nginx:1.28');
    // Git is the source of truth: the cluster is left to the controller.
    expect((await object(name))?.spec.image).toBe('nginx:1.27');

    expect((await admin.del(`${base}/${name}`)).status).toBe(200);
    expect((await git.lastCommit('deploys', 'release')).subject).toBe(`Delete WebApp ${ns}/${name} in project ${project}`);
    expect(await cloned(path, 'release')).toBeUndefined();
  });

  it('hybrid: the object and the commit both, the object naming the commit; patch and delete change both', async () => {
    const name = uniqueName('both');
    const res = await deploy(name, { deploymentMode: 'hybrid' });
    expect(res.status).toBe(201);
    const created = await git.lastCommit('deploys', 'main');
    expect(res.body.gitInfo.commitSha).toBe(created.sha);
    const live = await object(name);
    expect(live?.metadata.annotations?.['portico.dev/git-commit']).toBe(created.sha);
    expect(live?.metadata.labels?.['portico.dev/repository-id']).toBe(repo.id);
    expect((await cloned(defaultPath(name)))?.metadata.labels['portico.dev/deployment-mode']).toBe('hybrid');

    const patched = await admin.patch(`${base}/${name}`, { spec: { replicas: 3 } });
    expect(patched.status).toBe(200);
    const updated = await git.lastCommit('deploys', 'main');
    expect(updated.subject).toBe(`Update WebApp ${ns}/${name} in project ${project}`);
    expect(patched.body.gitInfo.commitSha).toBe(updated.sha);
    expect((await object(name))?.spec.replicas).toBe(3);
    expect((await cloned(defaultPath(name)))?.spec.replicas).toBe(3);

    // The timeline: the manifest, its push, and the cluster matching the commit.
    const timeline = await eventually(
      async () => (await admin.get(`${base}/${name}/timeline`)).body.timeline as { eventType: string; message?: string }[],
      (t) => t.some((e) => e.eventType === 'Synced' && e.message?.includes(updated.sha.slice(0, 12))),
      'Synced for the update\'s commit',
    );
    expect(timeline.map((e) => e.eventType)).toEqual(expect.arrayContaining(['Created', 'ManifestGenerated', 'PushedToGit', 'Synced']));
    const pushedUpdate = (timeline as { eventType: string; gitCommitUrl?: string }[]).filter((e) => e.eventType === 'PushedToGit').at(-1);
    expect(pushedUpdate?.gitCommitUrl).toBe(`https://localhost:${git.https.port}/deploys/commit/${updated.sha}`);
    const history = (await admin.get(`${base}/${name}/history`)).body as { events: { eventType: string; gitCommitSha?: string; gitRepository?: string; gitBranch?: string }[] };
    expect(history.events.find((e) => e.eventType === 'PushedToGit' && e.gitCommitSha === created.sha)).toMatchObject({ gitRepository: repo.repoURL, gitBranch: 'main' });

    // The repository is in use: it cannot go while this instance deploys through it.
    expect((await admin.del(`/api/v1/repositories/${repo.id}`)).status).toBe(409);
    expect((await admin.del(`${base}/${name}`)).status).toBe(200);
    expect((await git.lastCommit('deploys', 'main')).subject).toBe(`Delete WebApp ${ns}/${name} in project ${project}`);
    expect(await cloned(defaultPath(name))).toBeUndefined();
  });

  it('a Git mode needs a repository of the instance\'s own project: 400 naming repositoryId otherwise', async () => {
    const other = uniqueName('other');
    expect((await admin.post('/api/v1/projects', { name: other, destinations: [{ namespace: ns }] })).status).toBe(201);
    const theirs = await admin.post('/api/v1/repositories', { name: 'Theirs', projectId: other, repoURL: git.httpsUrl('deploys'), authType: 'https', httpsAuth: { caCert: git.pki.caCert } });
    for (const over of [{ repositoryId: undefined }, { repositoryId: theirs.body.id }, { repositoryId: 'repo-doesnotexist' }]) {
      const refused = await deploy(uniqueName('nope'), over);
      expect(refused.status).toBe(400);
      expect(refused.body.details).toHaveProperty('repositoryId');
    }
    expect((await deploy(uniqueName('nope'), { gitPath: '../outside.yaml' })).status).toBe(400);
  });

  describe('a remote that is down or refuses: 502 GITOPS_ERROR, nothing changed in the cluster or in Git', () => {
    let existing: string;
    beforeAll(async () => {
      existing = uniqueName('kept');
      expect((await deploy(existing, { deploymentMode: 'hybrid' })).status).toBe(201);
    });

    const nothingChanged = async (tip: string, name: string) => {
      expect((await git.lastCommit('deploys', 'main')).sha).toBe(tip);
      await eventually(() => object(name), (o) => o === undefined, `${name} to be gone from the cluster`);
      expect((await admin.get(`${base}/${name}`)).status).toBe(404);
    };

    for (const failure of ['down', 'refusing'] as const) {
      it(`${failure}: gitops and hybrid creates, a hybrid patch and a delete each fail and leave everything as it was`, async () => {
        const tip = (await git.lastCommit('deploys', 'main')).sha;
        const specBefore = (await object(existing))?.spec;
        if (failure === 'down') await git.https.stop();
        else await git.setHook('deploys', 'pre-receive', '#!/bin/sh\necho "main is protected" >&2\nexit 1\n');
        try {
          for (const mode of ['gitops', 'hybrid']) {
            const name = uniqueName(`${mode}-${failure}`);
            const res = await deploy(name, { deploymentMode: mode });
            expect(res.status).toBe(502);
            expect(res.body.code).toBe('GITOPS_ERROR');
            expect(res.body.message).toMatch(failure === 'down' ? /^could not connect to localhost:\d+$/ : /pre-receive hook declined \(main is protected\)/);
            await nothingChanged(tip, name);
          }
          const patch = await admin.patch(`${base}/${existing}`, { spec: { replicas: 7 } });
          expect(patch.status).toBe(502);
          await eventually(() => object(existing), (o) => JSON.stringify(o?.spec) === JSON.stringify(specBefore), 'the hybrid patch to be undone');
          expect((await admin.del(`${base}/${existing}`)).status).toBe(502);
          expect((await object(existing))?.metadata.deletionTimestamp).toBeUndefined();
        } finally {
          if (failure === 'down') await git.https.start();
          else await git.setHook('deploys', 'pre-receive', undefined);
        }
        expect((await git.lastCommit('deploys', 'main')).sha).toBe(tip);
      });
    }
  });
});
