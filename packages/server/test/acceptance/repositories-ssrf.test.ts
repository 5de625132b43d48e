import * as api from '@portico/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitServer, type GitServer } from '../../../core/test/support/git-server.js';
import { apiAs, type ApiAs } from '../support/api-as.js';
import { startPorticoServer, type PorticoServer } from '../support/cluster-modes.js';

// Issue 39, acceptance 6 through the API: a repository URL on loopback, at a private or link-local address, at a
// cloud metadata address, at a name resolving to one, or redirecting to one is refused (400) unless
// PORTICO_GIT_ALLOWED_HOSTS lets it through.
describe('outbound safety of repositories (embedded cluster)', () => {
  let git: GitServer;
  let strict: PorticoServer;
  let localhostOnly: PorticoServer;
  let asStrict: ApiAs;
  let asLocalhostOnly: ApiAs;

  beforeAll(async () => {
    git = await startGitServer();
    await git.createRepo('deploys');
    strict = await startPorticoServer({ mode: 'embedded' });
    localhostOnly = await startPorticoServer({ mode: 'embedded', env: { PORTICO_GIT_ALLOWED_HOSTS: 'localhost' } });
    asStrict = apiAs(strict.url, strict.adminToken);
    asLocalhostOnly = apiAs(localhostOnly.url, localhostOnly.adminToken);
  }, 90_000);
  afterAll(async () => {
    await localhostOnly?.close();
    await strict?.close();
    await git?.close();
  });

  const body = (repoURL: string, authType = 'https') => ({
    name: 'Guarded', projectId: 'default', repoURL, authType,
    ...(authType === 'ssh' ? { sshAuth: { privateKey: git.clientKey.privateKey, knownHosts: git.ssh.knownHosts } } : { httpsAuth: { caCert: git.pki.caCert, bearerToken: git.token } }),
  });
  const expectRefused = (res: { status: number; body: any }, category: string) => {
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(res.body.details).toMatchObject({ field: 'repoURL', category, setting: 'PORTICO_GIT_ALLOWED_HOSTS' });
  };

  it.each([
    ['loopback', 'https://127.0.0.1/deploys.git', 'https'],
    ['IPv6 loopback', 'https://[::1]:8443/deploys.git', 'https'],
    ['private', 'https://10.0.0.5/deploys.git', 'https'],
    ['private', 'ssh://git@192.168.10.20/srv/deploys.git', 'ssh'],
    ['link-local', 'https://169.254.10.10/deploys.git', 'https'],
    ['metadata', 'https://169.254.169.254/latest/meta-data.git', 'https'],
    ['a name resolving to loopback', 'https://localhost/deploys.git', 'https'],
    ['scp-like, loopback', 'git@127.0.0.1:platform/deploys.git', 'ssh'],
  ])('refuses %s: %s (create and test-connection)', async (what, url, authType) => {
    const category = what.includes('loopback') ? 'loopback' : what.includes('metadata') ? 'metadata' : what;
    expectRefused(await asStrict.post('/api/v1/repositories', body(url, authType)), category);
    const { name: _name, projectId: _project, ...connection } = body(url, authType);
    expectRefused(await asStrict.post('/api/v1/repositories/test-connection', connection), category);
  });

  it('refuses a PATCH that moves a repository to a private address', async () => {
    const created = await asStrict.post('/api/v1/repositories', body('https://203.0.113.10/deploys.git'));
    expect(created.status).toBe(201);
    expectRefused(await asStrict.patch(`/api/v1/repositories/${created.body.id}`, { repoURL: 'https://172.20.0.3/deploys.git' }), 'private');
    expect((await asStrict.get(`/api/v1/repositories/${created.body.id}`)).body.repoURL).toBe('https://203.0.113.10/deploys.git');
  });

  it('lets an allowed host through, and refuses its redirect to an address that is not allowed', async () => {
    const direct = api.RepoInfo.parse((await asLocalhostOnly.post('/api/v1/repositories', body(git.httpsUrl('deploys')))).body);
    expect((await asLocalhostOnly.post(`/api/v1/repositories/${direct.id}/test`)).body.valid).toBe(true);

    const redirecting = await asLocalhostOnly.post('/api/v1/repositories', body(`https://localhost:${git.https.port}/redirect/127.0.0.1/${git.https.port}/deploys.git`));
    expect(redirecting.status).toBe(201);
    const tested = await asLocalhostOnly.post(`/api/v1/repositories/${redirecting.body.id}/test`);
    expect(tested.status).toBe(400);
    expect(tested.body.details).toMatchObject({ host: '127.0.0.1', category: 'loopback', setting: 'PORTICO_GIT_ALLOWED_HOSTS' });
    // The allowed name by its address is still refused: the list named the host, not every loopback address.
    expectRefused(await asLocalhostOnly.post('/api/v1/repositories', body(git.httpsUrl('deploys', '127.0.0.1'))), 'loopback');
  });
});
