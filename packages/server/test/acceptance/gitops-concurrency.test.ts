import * as api from '@portico/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitIn } from '../../../core/test/support/git-server-files.js';
import { startGitServer, type GitServer } from '../../../core/test/support/git-server.js';
import { uniqueRedisPrefix } from '../support/portico.js';
import { apiAs, uniqueName, type ApiAs } from '../support/api-as.js';
import { startPorticoServer, type PorticoServer } from '../support/cluster-modes.js';

// Issue 39, acceptance 3: two replicas (one Redis, one cluster) deploying 20 instances each to the same branch at
// once, while someone else commits to it too: 40 commits, every manifest there, no failed request.
describe('two replicas pushing to one branch (kubernetes cluster, Redis)', () => {
  let git: GitServer;
  let a: PorticoServer;
  let b: PorticoServer;
  let project: string;
  let repoId: string;

  beforeAll(async () => {
    git = await startGitServer();
    await git.createRepo('busy');
    const redisPrefix = uniqueRedisPrefix();
    const env = { PORTICO_GIT_ALLOWED_HOSTS: 'localhost,127.0.0.0/8' };
    a = await startPorticoServer({ mode: 'kubernetes', kv: 'redis', redisPrefix, env });
    b = await startPorticoServer({ mode: 'kubernetes', kv: 'redis', redisPrefix, env, join: a, adminPassword: a.adminPassword });
    const admin = apiAs(a.url, a.adminToken);
    project = uniqueName('busy');
    expect((await admin.post('/api/v1/projects', { name: project, destinations: [{ namespace: 'dev' }] })).status).toBe(201);
    const repo = await admin.post('/api/v1/repositories', {
      name: 'Busy', projectId: project, repoURL: git.httpsUrl('busy'), authType: 'https', httpsAuth: { bearerToken: git.token, caCert: git.pki.caCert },
    });
    repoId = api.RepoInfo.parse(repo.body).id;
  }, 120_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await git?.close();
  });

  it('40 concurrent deploys: 40 commits, none lost, none failed, the outside commits kept too', async () => {
    const replicas: ApiAs[] = [apiAs(a.url, a.adminToken), apiAs(b.url, b.adminToken)];
    const names = replicas.map((_, r) => Array.from({ length: 20 }, (_, i) => `r${r}-app-${i}`));
    let stop = false;
    // Someone else pushes now and then while the deploys run (the first one right away).
    const outside = (async () => {
      let n = 0;
      while (!stop && n < 5) {
        await git.outsideCommit('busy', 'main', `outside/${n}.txt`, `${n}\n`, `Outside commit ${n}`);
        n += 1;
        await new Promise((r) => setTimeout(r, 1000));
      }
      return n;
    })();
    const answers = await Promise.all(
      replicas.flatMap((replica, r) =>
        names[r]!.map((name) =>
          replica.post('/api/v1/namespaces/dev/instances/WebApp', { name, project, values: { image: 'nginx:1.27' }, deploymentMode: 'gitops', repositoryId: repoId }),
        ),
      ),
    );
    stop = true;
    const outsideCommits = await outside;

    expect(answers.map((res) => res.status)).toEqual(answers.map(() => 201));
    const subjects = await git.subjects('busy', 'main');
    const creates = subjects.filter((s) => s.startsWith('Create WebApp dev/'));
    expect(creates).toHaveLength(40);
    expect(new Set(creates).size).toBe(40);
    expect(subjects.filter((s) => s.startsWith('Outside commit '))).toHaveLength(outsideCommits);
    expect(outsideCommits).toBeGreaterThan(0);
    for (const name of names.flat()) expect(await git.fileAt('busy', 'main', `${project}/dev/WebApp/${name}.yaml`)).toContain(`name: ${name}`);
    // Every answer names a commit that is on the branch.
    const shas = (await gitIn(git.repoDir('busy'), ['rev-list', 'refs/heads/main'])).split('\n');
    for (const res of answers) expect(shas).toContain(res.body.gitInfo.commitSha);
  }, 180_000);
});
