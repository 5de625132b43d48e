import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { isPorticoError } from '../../src/errors.js';
import { testConnection } from '../../src/repositories/connection-test.js';
import { addressCategory, createHostGuard, parseAllowedHosts, type Lookup } from '../../src/repositories/host-guard.js';
import { startGitServer, type GitServer } from '../support/git-server.js';

// Issue 39, acceptance 6 (contract §13, outbound safety): loopback, link-local, private and metadata addresses are
// refused unless PORTICO_GIT_ALLOWED_HOSTS lists them, judged on the address DNS answers, on every connection.

/** What a refusal looks like: 400 naming the host, the address and the category. */
async function refusal(promise: Promise<unknown>) {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isPorticoError(err)) throw new Error(`expected a refusal, got ${String(err)}`);
  expect(err.code).toBe('BAD_REQUEST');
  expect(err.message).toContain('PORTICO_GIT_ALLOWED_HOSTS');
  return err.details as { host: string; address: string; category: string };
}

const answers = (...addresses: string[]): Lookup => async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('address categories', () => {
  it.each([
    ['127.0.0.1', 'loopback'], ['127.10.0.3', 'loopback'], ['::1', 'loopback'],
    ['10.1.2.3', 'private'], ['172.16.0.9', 'private'], ['172.31.255.1', 'private'], ['192.168.1.1', 'private'], ['100.64.0.1', 'private'], ['fd12:3456::1', 'private'],
    ['169.254.1.1', 'link-local'], ['fe80::1', 'link-local'],
    ['169.254.169.254', 'metadata'], ['fd00:ec2::254', 'metadata'], ['100.100.100.200', 'metadata'],
    ['0.0.0.0', 'unspecified'], ['::', 'unspecified'], ['224.0.0.1', 'multicast'], ['ff02::1', 'multicast'],
    ['::ffff:10.0.0.1', 'private'], ['::ffff:7f00:1', 'loopback'], ['::ffff:169.254.169.254', 'metadata'],
  ])('%s is %s', (address, category) => {
    expect(addressCategory(address)).toBe(category);
  });

  it.each(['203.0.113.10', '140.82.112.3', '2606:50c0:8000::153', '172.32.0.1', '11.0.0.1'])('%s is public', (address) => {
    expect(addressCategory(address)).toBeUndefined();
  });
});

describe('the host guard', () => {
  const none = parseAllowedHosts([]);

  it('refuses a literal address of each category and lets a public one through', async () => {
    const guard = createHostGuard(none, answers());
    expect(await refusal(guard.resolve('127.0.0.1'))).toMatchObject({ address: '127.0.0.1', category: 'loopback' });
    expect(await refusal(guard.resolve('10.0.0.5'))).toMatchObject({ category: 'private' });
    expect(await refusal(guard.resolve('169.254.169.254'))).toMatchObject({ category: 'metadata' });
    expect(await refusal(guard.resolve('[::1]'))).toMatchObject({ category: 'loopback' });
    expect(await guard.resolve('203.0.113.10')).toBe('203.0.113.10');
  });

  it('judges a name by what it resolves to: every answer must be public', async () => {
    expect(await refusal(createHostGuard(none, answers('10.9.8.7')).resolve('git.internal.example'))).toMatchObject({ host: 'git.internal.example', address: '10.9.8.7', category: 'private' });
    expect(await refusal(createHostGuard(none, answers('203.0.113.10', '169.254.169.254')).resolve('mixed.example'))).toMatchObject({ category: 'metadata' });
    expect(await createHostGuard(none, answers('203.0.113.10')).resolve('git.example.com')).toBe('203.0.113.10');
    // The machine's own resolver: localhost is loopback.
    expect(await refusal(createHostGuard(none).resolve('localhost'))).toMatchObject({ host: 'localhost', category: 'loopback' });
  });

  it('lets through a host named in the allowed list, or an address inside an allowed CIDR, and nothing else', async () => {
    const allowed = parseAllowedHosts(['git.corp.example', '10.20.0.0/16', 'fd00:1::/32', '192.168.5.7']);
    expect(await createHostGuard(allowed, answers('10.99.0.1')).resolve('GIT.corp.example')).toBe('10.99.0.1');
    expect(await createHostGuard(allowed, answers('10.20.3.4')).resolve('other.corp.example')).toBe('10.20.3.4');
    expect(await createHostGuard(allowed, answers()).resolve('192.168.5.7')).toBe('192.168.5.7');
    expect(await createHostGuard(allowed, answers()).resolve('fd00:1::9')).toBe('fd00:1::9');
    expect(await refusal(createHostGuard(allowed, answers('10.21.0.1')).resolve('other.corp.example'))).toMatchObject({ category: 'private' });
    expect(await refusal(createHostGuard(allowed, answers()).resolve('192.168.5.8'))).toMatchObject({ category: 'private' });
  });

  it('a bad entry in PORTICO_GIT_ALLOWED_HOSTS stops start-up naming the variable', () => {
    expect(() => loadConfig({ PORTICO_GIT_ALLOWED_HOSTS: 'localhost,10.0.0.0/33' })).toThrow(/PORTICO_GIT_ALLOWED_HOSTS: .*10\.0\.0\.0\/33/);
    expect(() => loadConfig({ PORTICO_GIT_ALLOWED_HOSTS: 'not a host' })).toThrow(/PORTICO_GIT_ALLOWED_HOSTS/);
    expect(loadConfig({ PORTICO_GIT_ALLOWED_HOSTS: 'localhost, 127.0.0.0/8' }).git.allowedHosts).toEqual(['localhost', '127.0.0.0/8']);
  });
});

describe('on every connection, redirects included', () => {
  let git: GitServer;
  beforeAll(async () => {
    git = await startGitServer();
    await git.createRepo('guarded');
  }, 60_000);
  afterAll(async () => {
    await git?.close();
  });
  const credentials = () => ({ caCert: git.pki.caCert, bearerToken: git.token });

  it('a name that resolved to a public address once and to a private one at connection time is refused then', async () => {
    let calls = 0;
    // DNS rebinding: the first answer (when the repository is registered) is public, every later one is loopback.
    const guard = createHostGuard(parseAllowedHosts([]), async () => [{ address: calls++ === 0 ? '203.0.113.10' : '127.0.0.1', family: 4 }]);
    expect(await guard.resolve('rebind.example')).toBe('203.0.113.10');
    const url = `https://rebind.example:${git.https.port}/guarded.git`;
    expect(await refusal(testConnection({ url, authType: 'https', credentials: credentials() }, 'main', { guard, timeoutMs: 10_000 }))).toMatchObject({ host: 'rebind.example', address: '127.0.0.1' });
    const sshUrl = `ssh://git@rebind.example:${git.ssh.port}/x.git`;
    expect(await refusal(testConnection({ url: sshUrl, authType: 'ssh', credentials: { privateKey: git.clientKey.privateKey } }, 'main', { guard, timeoutMs: 10_000 }))).toMatchObject({ category: 'loopback' });
  });

  it('a redirect to a refused address is refused (400) before anything reaches it; an allowed one is followed, without the credentials', async () => {
    const url = `https://localhost:${git.https.port}/redirect/127.0.0.1/${git.https.port}/guarded.git`;
    const basic = { caCert: git.pki.caCert, username: git.username, password: git.password };
    const reachedTarget = () => git.https.requests.filter((r) => r.startsWith('GET /guarded.git/'));

    const onlyLocalhost = createHostGuard(parseAllowedHosts(['localhost']));
    const refused = await refusal(testConnection({ url, authType: 'https', credentials: basic }, 'main', { guard: onlyLocalhost, timeoutMs: 10_000 }));
    expect(refused).toMatchObject({ host: '127.0.0.1', address: '127.0.0.1', category: 'loopback' });
    expect(git.https.requests.some((r) => r.startsWith('GET /redirect/'))).toBe(true);
    expect(reachedTarget()).toEqual([]);

    // Allowed: git follows the redirect, and the target's challenge gets no answer (credentials stay with the repository's host).
    const both = createHostGuard(parseAllowedHosts(['localhost', '127.0.0.0/8']));
    const followed = await testConnection({ url, authType: 'https', credentials: basic }, 'main', { guard: both, timeoutMs: 10_000 });
    expect(followed).toMatchObject({ valid: false, message: expect.stringMatching(/^authentication failed: /) });
    expect(reachedTarget().length).toBeGreaterThan(0);
    expect(reachedTarget().filter((r) => r.endsWith('[auth]'))).toEqual([]);
  });
});
