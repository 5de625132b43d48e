import { Writable } from 'node:stream';
import * as api from '@portico/api';
import { createLogger } from '@portico/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitServer, type GitServer } from '../../../core/test/support/git-server.js';
import { apiAs, type ApiAs } from '../support/api-as.js';
import { startPorticoServer, type PorticoServer } from '../support/cluster-modes.js';

// Issue 39, acceptance 1 through the API: for each transport (HTTPS with a password, HTTPS with a token, SSH) a
// registered repository tests valid against a real Git server on loopback; a wrong password, a wrong key, an
// unknown host key and a missing branch each test invalid with a message naming the cause and no secret.
describe('repository connection tests through the API (kubernetes cluster)', () => {
  let git: GitServer;
  let server: PorticoServer;
  let admin: ApiAs;
  const logLines: string[] = [];
  const answers: string[] = [];

  beforeAll(async () => {
    git = await startGitServer();
    await git.createRepo('deploys');
    const logger = createLogger('debug', new Writable({ write: (chunk, _enc, done) => (logLines.push(String(chunk)), done()) }));
    server = await startPorticoServer({ mode: 'kubernetes', logger, env: { PORTICO_GIT_ALLOWED_HOSTS: 'localhost,127.0.0.0/8' } });
    admin = apiAs(server.url, server.adminToken);
  }, 90_000);
  afterAll(async () => {
    await server?.close();
    await git?.close();
  });

  const post = async (path: string, body?: unknown) => {
    const res = await admin.post(path, body);
    answers.push(JSON.stringify(res.body));
    return res;
  };
  const register = async (body: Record<string, unknown>) => {
    const res = await post('/api/v1/repositories', { projectId: 'default', defaultBranch: 'main', ...body });
    expect(res.status).toBe(201);
    return api.RepoInfo.parse(res.body);
  };
  const httpsAuth = (over: Record<string, string> = {}) => ({ caCert: git.pki.caCert, ...over });

  it('each transport tests valid, and the verdict is recorded on the repository', async () => {
    const repos = [
      await register({ name: 'HTTPS password', repoURL: git.httpsUrl('deploys'), authType: 'https', httpsAuth: httpsAuth({ username: git.username, password: git.password }) }),
      await register({ name: 'HTTPS token', repoURL: git.httpsUrl('deploys'), authType: 'https', httpsAuth: httpsAuth({ bearerToken: git.token }) }),
      await register({ name: 'SSH key', repoURL: git.sshUrl('deploys'), authType: 'ssh', sshAuth: { privateKey: git.clientKey.privateKey, knownHosts: git.ssh.knownHosts } }),
    ];
    for (const repo of repos) {
      const tested = await post(`/api/v1/repositories/${repo.id}/test`);
      expect(tested.status).toBe(200);
      expect(api.RepositoryTestResult.parse(tested.body)).toMatchObject({ valid: true, details: { repository: repo.repoURL, branch: 'main' } });
      const after = api.RepoInfo.parse((await admin.get(`/api/v1/repositories/${repo.id}`)).body);
      expect(after).toMatchObject({ validationStatus: 'valid', validationMessage: tested.body.message });
    }
  });

  it('a wrong password, a wrong key, an unknown host key and a missing branch test invalid, each named', async () => {
    const testConnection = async (body: Record<string, unknown>) => {
      const res = await post('/api/v1/repositories/test-connection', body);
      expect(res.status).toBe(200);
      return api.ConnectionTestResult.parse(res.body);
    };
    const https = { repoURL: git.httpsUrl('deploys'), authType: 'https' };
    const ssh = { repoURL: git.sshUrl('deploys'), authType: 'ssh' };
    expect((await testConnection({ ...https, httpsAuth: httpsAuth({ username: git.username, password: 'not-the-password' }) })).message).toMatch(/^authentication failed: .* refused the username and password$/);
    expect((await testConnection({ ...ssh, sshAuth: { privateKey: git.wrongKey.privateKey, knownHosts: git.ssh.knownHosts } })).message).toMatch(/^authentication failed: .* refused the SSH key/);
    expect((await testConnection({ ...ssh, sshAuth: { privateKey: git.clientKey.privateKey } })).message).toMatch(/^unknown host key: /);
    expect(await testConnection({ ...https, defaultBranch: 'release', httpsAuth: httpsAuth({ bearerToken: git.token }) })).toEqual({ valid: false, message: 'branch "release" not found in the repository' });

    // A stored repository whose password changed tests invalid, and says so on the repository.
    const stale = await register({ name: 'Stale password', repoURL: git.httpsUrl('deploys'), authType: 'https', httpsAuth: httpsAuth({ username: git.username, password: 'rotated-away' }) });
    expect((await post(`/api/v1/repositories/${stale.id}/test`)).body.valid).toBe(false);
    expect((await admin.get(`/api/v1/repositories/${stale.id}`)).body.validationStatus).toBe('invalid');
  });

  it('no answer and no log line holds a credential', () => {
    const seen = answers.join('\n') + logLines.join('');
    for (const secret of [git.password, git.token, ...git.clientKey.privateKey.split('\n').filter((l) => l.length > 20)]) expect(seen).not.toContain(secret);
  });
});
