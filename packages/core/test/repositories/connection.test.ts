import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConnection } from '../../src/repositories/connection-test.js';
import type { Remote } from '../../src/repositories/git-remote.js';
import { createHostGuard, parseAllowedHosts } from '../../src/repositories/host-guard.js';
import { startGitServer, type GitServer } from '../support/git-server.js';

// Issue 39, acceptance 1 (contract §13): connection tests against real Git servers on loopback, one over HTTPS
// (git http-backend, Basic and Bearer, a CA of its own) and one over SSH (sshd with git-shell, key auth). A failed
// test names its cause; no message, no process argument and no temporary file keeps a credential.
const guard = createHostGuard(parseAllowedHosts(['localhost', '127.0.0.0/8', '::1']));
const test = (remote: Remote, branch = 'main', timeoutMs = 10_000) => testConnection(remote, branch, { guard, timeoutMs });

let git: GitServer;
beforeAll(async () => {
  git = await startGitServer();
  await git.createRepo('probe');
}, 60_000);
afterAll(async () => {
  await git?.close();
});

/** Every secret of the server's credentials, whole and line by line (a key's body). */
const secretsOf = () => [git.password, git.token, ...git.clientKey.privateKey.split('\n').filter((l) => l.length > 20), ...git.wrongKey.privateKey.split('\n').filter((l) => l.length > 20)];
const expectNoSecret = (text: string) => {
  for (const secret of secretsOf()) expect(text).not.toContain(secret);
};

describe('HTTPS', () => {
  const https = (credentials: Remote['credentials'], repo = 'probe'): Remote => ({ url: git.httpsUrl(repo), authType: 'https', credentials: { caCert: git.pki.caCert, ...credentials } });

  it('is valid with the user and password, and with the bearer token', async () => {
    const password = await test(https({ username: git.username, password: git.password }));
    expect(password).toEqual({ valid: true, message: expect.stringMatching(/^connected: branch "main" is at [0-9a-f]{12}$/) });
    expect((await test(https({ bearerToken: git.token }))).valid).toBe(true);
  });

  it('a wrong password or token is an authentication failure, and says so without the secret', async () => {
    const wrongPassword = await test(https({ username: git.username, password: `${git.password}-wrong` }));
    expect(wrongPassword.valid).toBe(false);
    expect(wrongPassword.message).toMatch(/^authentication failed: localhost:\d+ refused the username and password$/);
    const wrongToken = await test(https({ bearerToken: `${git.token}-wrong` }));
    expect(wrongToken.message).toMatch(/^authentication failed: localhost:\d+ refused the bearer token$/);
    expectNoSecret(wrongPassword.message + wrongToken.message);
  });

  it('a certificate it cannot verify (no caCert) is a TLS failure', async () => {
    const verdict = await test({ url: git.httpsUrl('probe'), authType: 'https', credentials: { username: git.username, password: git.password } });
    expect(verdict).toEqual({ valid: false, message: 'TLS failure: the server\'s certificate is not trusted (give its CA in httpsAuth.caCert)' });
  });

  it('a missing branch and a missing repository are named', async () => {
    expect(await test(https({ bearerToken: git.token }), 'no-such-branch')).toEqual({ valid: false, message: 'branch "no-such-branch" not found in the repository' });
    expect((await test(https({ bearerToken: git.token }, 'no-such-repo'))).message).toMatch(/^repository not found: /);
  });

  it('keeps every credential out of process arguments and leaves no temporary file behind', async () => {
    // A temporary directory of this test's own: other test files open sessions of their own meanwhile.
    const own = await mkdtemp(path.join(tmpdir(), 'portico-connection-tmp-'));
    const tmpBefore = process.env.TMPDIR;
    process.env.TMPDIR = own;
    try {
      git.https.delayMs = 1500;
      const running = test(https({ username: git.username, password: git.password }));
      await new Promise((r) => setTimeout(r, 700));
      // While git waits for the server: every process's command line on this machine.
      const commandLines: string[] = [];
      for (const pid of (await readdir('/proc')).filter((p) => /^\d+$/.test(p))) {
        commandLines.push(await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => ''));
      }
      expect(commandLines.some((c) => c.includes('ls-remote'))).toBe(true);
      expectNoSecret(commandLines.join('\n'));
      const during = await readdir(own);
      expect((await running).valid).toBe(true);
      // The session's directory was there while git ran (so this looks in the right place), and is gone after.
      expect(during.filter((f) => f.startsWith('portico-git-'))).toHaveLength(1);
      expect(await readdir(own)).toEqual([]);
    } finally {
      if (tmpBefore === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmpBefore;
      await rm(own, { recursive: true, force: true });
    }
  });
});

describe('SSH', () => {
  const ssh = (credentials: Remote['credentials'], repo = 'probe'): Remote => ({ url: git.sshUrl(repo), authType: 'ssh', credentials });

  it('is valid with the authorized key and the known host key', async () => {
    expect(await test(ssh({ privateKey: git.clientKey.privateKey, knownHosts: git.ssh.knownHosts }))).toEqual({ valid: true, message: expect.stringMatching(/^connected: /) });
    // By name too: the host key is looked up under the name, the connection goes to the checked address.
    expect((await test({ url: git.sshUrl('probe', 'localhost'), authType: 'ssh', credentials: { privateKey: git.clientKey.privateKey, knownHosts: git.ssh.knownHosts } })).valid).toBe(true);
  });

  it('a wrong key, an unknown host key and a changed host key are each named, without the key', async () => {
    const wrongKey = await test(ssh({ privateKey: git.wrongKey.privateKey, knownHosts: git.ssh.knownHosts }));
    expect(wrongKey).toEqual({ valid: false, message: expect.stringMatching(/^authentication failed: 127\.0\.0\.1:\d+ refused the SSH key/) });
    const unknownHost = await test(ssh({ privateKey: git.clientKey.privateKey }));
    expect(unknownHost).toEqual({ valid: false, message: expect.stringMatching(/^unknown host key: 127\.0\.0\.1:\d+ is not in sshAuth\.knownHosts/) });
    const otherKey = `[127.0.0.1]:${git.ssh.port} ${git.wrongKey.publicKey.split(' ').slice(0, 2).join(' ')}\n`;
    const changed = await test(ssh({ privateKey: git.clientKey.privateKey, knownHosts: otherKey }));
    expect(changed).toEqual({ valid: false, message: expect.stringMatching(/^host key mismatch: /) });
    expectNoSecret(wrongKey.message + unknownHost.message + changed.message);
  });

  it('a missing branch is named', async () => {
    expect(await test(ssh({ privateKey: git.clientKey.privateKey, knownHosts: git.ssh.knownHosts }), 'nope')).toEqual({ valid: false, message: 'branch "nope" not found in the repository' });
  });
});

describe('bounded and unreachable', () => {
  let silent: Server;
  const held: Socket[] = [];
  beforeAll(async () => {
    // Accepts and never says a word: the TLS handshake (or SSH banner) never comes.
    silent = createServer((socket) => void held.push(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
  });
  afterAll(async () => {
    for (const s of held) s.destroy();
    await new Promise((r) => silent.close(r));
  });

  it('a server that never answers is a failed test within the bound, not a hang', async () => {
    const { port } = silent.address() as { port: number };
    const started = Date.now();
    const verdict = await test({ url: `https://127.0.0.1:${port}/x.git`, authType: 'https', credentials: {} }, 'main', 1500);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(verdict).toEqual({ valid: false, message: `timed out: 127.0.0.1:${port} did not answer within 2 s` });
    const sshVerdict = await test({ url: `ssh://git@127.0.0.1:${port}/x.git`, authType: 'ssh', credentials: { privateKey: git.clientKey.privateKey } }, 'main', 1500);
    expect(sshVerdict.valid).toBe(false);
    expect(sshVerdict.message).toMatch(/^timed out: /);
  });

  it('a closed port is "could not connect"', async () => {
    const probe = createServer();
    const port = await new Promise<number>((r) => probe.listen(0, '127.0.0.1', () => r((probe.address() as { port: number }).port)));
    await new Promise((r) => probe.close(r));
    expect(await test({ url: `https://127.0.0.1:${port}/x.git`, authType: 'https', credentials: {} })).toEqual({ valid: false, message: `could not connect to 127.0.0.1:${port}` });
    expect(await test({ url: `ssh://git@127.0.0.1:${port}/x.git`, authType: 'ssh', credentials: { privateKey: git.clientKey.privateKey } })).toEqual({ valid: false, message: `could not connect to 127.0.0.1:${port}` });
  });
});
