import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryKeyValue } from '../../src/adapters/memory-kv.js';
import { isPorticoError } from '../../src/errors.js';
import type { KeyValue } from '../../src/ports/keyvalue.js';
import type { GitBackend } from '../../src/repositories/git-backend.js';
import type { Remote } from '../../src/repositories/git-remote.js';
import { createHostGuard, parseAllowedHosts } from '../../src/repositories/host-guard.js';
import { createPushLock } from '../../src/repositories/push-lock.js';
import { createRemoteBackends } from '../../src/repositories/remote-backend.js';
import { eventually } from '../support/eventually.js';
import { mustRun } from '../support/git-server-files.js';
import { startGitServer, type GitServer } from '../support/git-server.js';

// Issue 39 step 4 (contract §13): every write is a commit pushed before the answer; a push overtaken by someone
// else's is redone on the new tip; pushes to one branch are serialised by a lock every replica shares; a remote
// that refuses or is down fails the write and leaves the branch as it was.
const guard = createHostGuard(parseAllowedHosts(['localhost', '127.0.0.0/8']));
let git: GitServer;
let mirrors: string;
const roots: string[] = [];

/** A replica's backends: its own local copies, and the lock of `kv` (shared by replicas that share the store). */
async function replica(kv: KeyValue): Promise<(remote: Remote) => GitBackend> {
  const root = await mkdtemp(path.join(mirrors, 'replica-'));
  roots.push(root);
  return createRemoteBackends({ guard, lock: createPushLock(kv, { leaseMs: 10_000, waitMs: 60_000 }), mirrorRoot: async () => root, timeoutMs: 20_000, attempts: 50 });
}

beforeAll(async () => {
  git = await startGitServer();
  mirrors = await mkdtemp(path.join(tmpdir(), 'portico-mirror-test-'));
}, 60_000);
afterAll(async () => {
  await git?.close();
  await rm(mirrors, { recursive: true, force: true });
});

const https = (repo: string): Remote => ({ url: git.httpsUrl(repo), authType: 'https', credentials: { caCert: git.pki.caCert, username: git.username, password: git.password } });
const ssh = (repo: string): Remote => ({ url: git.sshUrl(repo), authType: 'ssh', credentials: { privateKey: git.clientKey.privateKey, knownHosts: git.ssh.knownHosts } });
const pushes = () => git.https.requests.filter((r) => r.startsWith('POST /') && r.includes('git-receive-pack')).length;

describe.each([
  ['HTTPS', https],
  ['SSH', ssh],
])('writes over %s', (_transport, remoteOf) => {
  const repo = `writes-${_transport.toLowerCase()}`;
  let backend: GitBackend;
  beforeAll(async () => {
    await git.createRepo(repo);
    backend = (await replica(createMemoryKeyValue()))(remoteOf(repo));
  });

  it('pushes a commit by Portico with the message given, changes and removes the file, and reads it back', async () => {
    const message = 'Create WebApp dev/shop in project alpha\n\nRequested by user:alice through Portico.';
    const created = await backend.write('main', { path: 'alpha/dev/WebApp/shop.yaml', content: 'spec: {image: a}\n', expect: 'absent', message });
    expect(created.changed).toBe(true);
    expect(await git.lastCommit(repo, 'main')).toEqual({ sha: created.sha, author: 'Portico <portico@localhost>', subject: 'Create WebApp dev/shop in project alpha', body: 'Requested by user:alice through Portico.' });
    expect(await git.fileAt(repo, 'main', 'alpha/dev/WebApp/shop.yaml')).toBe('spec: {image: a}\n');
    expect(await backend.read('main', 'alpha/dev/WebApp/shop.yaml')).toEqual({ content: 'spec: {image: a}\n', commit: created.sha });

    const updated = await backend.write('main', { path: 'alpha/dev/WebApp/shop.yaml', content: 'spec: {image: b}\n', expect: 'any', message: 'Update WebApp dev/shop in project alpha' });
    expect(updated.sha).not.toBe(created.sha);
    expect(await git.fileAt(repo, 'main', 'alpha/dev/WebApp/shop.yaml')).toBe('spec: {image: b}\n');
    const removed = await backend.write('main', { path: 'alpha/dev/WebApp/shop.yaml', content: undefined, expect: 'any', message: 'Delete WebApp dev/shop in project alpha' });
    expect(removed.changed).toBe(true);
    expect(await git.fileAt(repo, 'main', 'alpha/dev/WebApp/shop.yaml')).toBeUndefined();
    expect((await git.subjects(repo, 'main')).slice(0, 3)).toEqual(['Delete WebApp dev/shop in project alpha', 'Update WebApp dev/shop in project alpha', 'Create WebApp dev/shop in project alpha']);
  });

  it('a create whose file is already on the branch is 409, and pushes nothing', async () => {
    await git.outsideCommit(repo, 'main', 'alpha/dev/WebApp/taken.yaml', 'x: 1\n');
    const before = await git.lastCommit(repo, 'main');
    const err = await backend.write('main', { path: 'alpha/dev/WebApp/taken.yaml', content: 'y: 2\n', expect: 'absent', message: 'Create' }).catch((e: unknown) => e);
    expect(isPorticoError(err) && err.code).toBe('CONFLICT');
    expect((await git.lastCommit(repo, 'main')).sha).toBe(before.sha);
  });
});

describe('concurrency', () => {
  it('two replicas sharing a store push 15 files each to one branch while others commit too: every file, one push each', async () => {
    await git.createRepo('shared');
    const kv = createMemoryKeyValue();
    const [a, b] = [(await replica(kv))(https('shared')), (await replica(kv))(https('shared'))];
    const before = pushes();
    const writes = [a, b].flatMap((backend, r) =>
      Array.from({ length: 15 }, (_, i) => backend.write('main', { path: `p/${r}-${i}.yaml`, content: `n: ${i}\n`, expect: 'absent', message: `Create ${r}-${i}` })),
    );
    const outside = (async () => {
      for (let i = 0; i < 3; i++) await git.outsideCommit('shared', 'main', `outside-${i}.txt`, `${i}\n`);
    })();
    const results = await Promise.all(writes);
    await outside;
    expect(results.every((r) => r.changed)).toBe(true);
    const subjects = await git.subjects('shared', 'main');
    expect(subjects.filter((s) => s.startsWith('Create '))).toHaveLength(30);
    for (const r of [0, 1]) for (let i = 0; i < 15; i++) expect(await git.fileAt('shared', 'main', `p/${r}-${i}.yaml`)).toBe(`n: ${i}\n`);
    // Serialised by the shared lock: only the outside commits can make a push go stale (at most one retry each).
    expect(pushes() - before).toBeLessThanOrEqual(30 + 3);
  }, 120_000);

  it('without a shared lock a push overtaken by another replica is redone on the new tip', async () => {
    await git.createRepo('overtaken');
    // The remote parks replica a's push in its pre-receive hook until b has pushed: a's push then meets a branch
    // that moved, is refused as stale, and must be redone on b's commit. Nothing left to timing.
    const signals = await mkdtemp(path.join(tmpdir(), 'portico-overtake-'));
    await chmod(signals, 0o777);
    await git.setHook('overtaken', 'pre-receive', [
      '#!/bin/sh',
      'while read old new ref; do',
      '  if git log -1 --format=%s "$new" | grep -q "^Slow"; then',
      `    touch ${signals}/parked`,
      `    i=0; while [ ! -e ${signals}/go ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done`,
      '  fi',
      'done',
      'exit 0',
      '',
    ].join('\n'));
    try {
      const [a, b] = [(await replica(createMemoryKeyValue()))(https('overtaken')), (await replica(createMemoryKeyValue()))(https('overtaken'))];
      const before = pushes();
      const slow = a.write('main', { path: 'a.yaml', content: 'a\n', expect: 'absent', message: 'Slow create a' });
      await eventually(() => existsSync(`${signals}/parked`), Boolean, "replica a's push parked by the remote");
      const fast = await b.write('main', { path: 'b.yaml', content: 'b\n', expect: 'absent', message: 'Create b' });
      expect(fast.changed).toBe(true);
      await writeFile(`${signals}/go`, '');
      const redone = await slow;
      expect(redone.changed).toBe(true);
      // a's first push was refused as stale, b's landed, a's second landed on top of b's commit.
      expect(pushes() - before).toBe(3);
      expect(await git.subjects('overtaken', 'main')).toEqual(expect.arrayContaining(['Slow create a', 'Create b']));
      expect((await git.subjects('overtaken', 'main'))[0]).toBe('Slow create a');
      expect(await git.fileAt('overtaken', 'main', 'b.yaml')).toBe('b\n');
      expect(await git.fileAt('overtaken', 'main', 'a.yaml')).toBe('a\n');
    } finally {
      await git.setHook('overtaken', 'pre-receive', undefined);
      await rm(signals, { recursive: true, force: true });
    }
  }, 120_000);

  it('without a shared lock many writes from two replicas at once all land: nothing is lost', async () => {
    await git.createRepo('unlocked');
    const [a, b] = [(await replica(createMemoryKeyValue()))(https('unlocked')), (await replica(createMemoryKeyValue()))(https('unlocked'))];
    const results = await Promise.all(
      [a, b].flatMap((backend, r) => Array.from({ length: 8 }, (_, i) => backend.write('main', { path: `u/${r}-${i}.yaml`, content: `${i}\n`, expect: 'absent', message: `Create ${r}-${i}` }))),
    );
    expect(results.every((r) => r.changed)).toBe(true);
    expect((await git.subjects('unlocked', 'main')).filter((s) => s.startsWith('Create '))).toHaveLength(16);
  }, 120_000);
});

describe('failures', () => {
  it('a push refused by a pre-receive hook is 502 GITOPS_ERROR with the remote\'s reason; the branch is unchanged', async () => {
    await git.createRepo('protected');
    const backend = (await replica(createMemoryKeyValue()))(https('protected'));
    await git.setHook('protected', 'pre-receive', '#!/bin/sh\necho "main is protected: changes go through review" >&2\nexit 1\n');
    const before = await git.lastCommit('protected', 'main');
    const err = await backend.write('main', { path: 'a.yaml', content: 'a\n', expect: 'absent', message: 'Create a' }).catch((e: unknown) => e);
    expect(isPorticoError(err) && err.code).toBe('GITOPS_ERROR');
    expect((err as Error).message).toBe('the remote refused the push to main: pre-receive hook declined (main is protected: changes go through review)');
    expect((await git.lastCommit('protected', 'main')).sha).toBe(before.sha);
    await git.setHook('protected', 'pre-receive', undefined);
  });

  it('a remote that is down is 502 GITOPS_ERROR naming it, and the write goes through once it is back', async () => {
    await git.createRepo('flaky');
    const backend = (await replica(createMemoryKeyValue()))(https('flaky'));
    await git.https.stop();
    try {
      const err = await backend.write('main', { path: 'a.yaml', content: 'a\n', expect: 'absent', message: 'Create a' }).catch((e: unknown) => e);
      expect(isPorticoError(err) && err.code).toBe('GITOPS_ERROR');
      expect((err as Error).message).toMatch(/^could not connect to localhost:\d+$/);
    } finally {
      await git.https.start();
    }
    expect((await backend.write('main', { path: 'a.yaml', content: 'a\n', expect: 'absent', message: 'Create a' })).changed).toBe(true);
  });

  it('a branch that does not exist is named; an empty repository gets its first branch', async () => {
    await git.createRepo('branches');
    const backend = (await replica(createMemoryKeyValue()))(https('branches'));
    const err = await backend.write('release', { path: 'a.yaml', content: 'a\n', expect: 'absent', message: 'Create a' }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('branch "release" not found in the repository');

    // A repository without any branch (just created on the host): the first write makes the branch.
    const dir = await git.createRepo('empty');
    await mustRun(git.user, 'git', ['-C', dir, 'update-ref', '-d', 'refs/heads/main']);
    const empty = (await replica(createMemoryKeyValue()))(https('empty'));
    const first = await empty.write('main', { path: 'a.yaml', content: 'a\n', expect: 'absent', message: 'Create a' });
    expect(first.changed).toBe(true);
    expect(await git.lastCommit('empty', 'main')).toMatchObject({ sha: first.sha, subject: 'Create a' });
    expect(await git.fileAt('empty', 'main', 'README.md')).toBeUndefined();
    expect(await empty.read('main', 'a.yaml')).toEqual({ content: 'a\n', commit: first.sha });
  });
});
