import { describe, expect, it } from 'vitest';
import { badRequest } from '../../src/errors.js';
import { createGitDeployments } from '../../src/repositories/deployments.js';
import type { GitBackend } from '../../src/repositories/git-backend.js';
import type { RepositoryResolver } from '../../src/repositories/repositories.js';

// §13 drift reads every Git-mode file of a branch in a row, on every replica: the repository's settings (a
// ConfigMap and a Secret in the cluster) are read once for such a run, not twice per file.
const placement = { repositoryId: 'repo-a', repositoryUrl: 'https://git.example.com/a.git', branch: 'main', path: 'alpha/dev/WebApp/shop.yaml' };

function counting(fail = false) {
  const calls = { resolves: 0, reads: 0, writes: 0 };
  const backend: GitBackend = {
    read: async () => (calls.reads++, { content: 'spec: {}\n', commit: 'c1' }),
    write: async () => (calls.writes++, { sha: 'c2', changed: true }),
  };
  const resolver: RepositoryResolver = {
    async resolve(project, id) {
      calls.resolves++;
      if (fail) throw badRequest(`repository "${id}" is not a repository of project "${project}"`, { repositoryId: id });
      return { info: { id, projectId: project, repoURL: placement.repositoryUrl, defaultBranch: 'main' } as never, remote: { url: placement.repositoryUrl, authType: 'https', credentials: { password: 'secret' } } };
    },
  };
  return { calls, deployments: createGitDeployments(resolver, () => backend) };
}

describe('git deployments: how often a repository is resolved', () => {
  it('reads that accept a recent state share one resolution; writes and plain reads resolve afresh', async () => {
    const { calls, deployments } = counting();
    for (let i = 0; i < 50; i++) await deployments.read('alpha', { ...placement, path: `f-${i}.yaml` }, { maxAgeMs: 60_000 });
    expect(calls).toEqual({ resolves: 1, reads: 50, writes: 0 });
    // Another project's repository of the same id is another resolution (and another project's check).
    await deployments.read('beta', placement, { maxAgeMs: 60_000 });
    expect(calls.resolves).toBe(2);
    // A write never pushes with settings older than the request.
    await deployments.write('alpha', placement, { content: 'x\n', expect: 'any', message: 'Update' });
    await deployments.read('alpha', placement);
    expect(calls.resolves).toBe(4);
    // Past the age a read accepts, it resolves again.
    await deployments.read('alpha', placement, { maxAgeMs: -1 });
    expect(calls.resolves).toBe(5);
  });

  it('a failed resolution is not reused: each read says so again', async () => {
    const { calls, deployments } = counting(true);
    for (let i = 0; i < 3; i++) await expect(deployments.read('alpha', placement, { maxAgeMs: 60_000 })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(calls).toEqual({ resolves: 3, reads: 0, writes: 0 });
  });
});
