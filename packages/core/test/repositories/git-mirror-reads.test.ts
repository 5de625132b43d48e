import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createGitMirror } from '../../src/repositories/git-mirror.js';

// §13 drift compares every Git-mode file with the cluster every period on every replica: a file read on a tip
// already read costs no git process (a commit never changes), and a new tip is read anew.
const runs = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../src/repositories/git-run.js', async (original) => {
  const real = await original<typeof import('../../src/repositories/git-run.js')>();
  return { ...real, runGit: (...args: Parameters<typeof real.runGit>) => (runs.count++, real.runGit(...args)) };
});

const root = await mkdtemp(path.join(tmpdir(), 'portico-mirror-reads-'));
afterAll(() => rm(root, { recursive: true, force: true }));

describe('git mirror: reading files at a tip', () => {
  it('a file read again at the same tip runs no git; after a commit the new content and commit are read', async () => {
    const mirror = createGitMirror(root, 'https://git.example.com/reads.git', 20_000);
    const first = (await mirror.commit(undefined, 'a/shop.yaml', 'spec: {image: a}\n', 'Create shop'))!;
    const tip = (await mirror.commit(first, 'a/other.yaml', 'spec: {}\n', 'Create other'))!;

    expect(await mirror.readFile(tip, 'a/shop.yaml', true)).toEqual({ content: 'spec: {image: a}\n', commit: first });
    const before = runs.count;
    for (let i = 0; i < 20; i++) expect(await mirror.readFile(tip, 'a/shop.yaml', true)).toEqual({ content: 'spec: {image: a}\n', commit: first });
    expect(runs.count - before).toBe(0);
    // The content alone is a read of its own (no history walk), and an absent file is remembered as absent.
    expect(await mirror.readFile(tip, 'a/shop.yaml')).toEqual({ content: 'spec: {image: a}\n' });
    expect(await mirror.readFile(tip, 'a/gone.yaml', true)).toEqual({});

    const next = (await mirror.commit(tip, 'a/shop.yaml', 'spec: {image: b}\n', 'Update shop'))!;
    expect(await mirror.readFile(next, 'a/shop.yaml', true)).toEqual({ content: 'spec: {image: b}\n', commit: next });
    expect(await mirror.readFile(next, 'a/other.yaml', true)).toEqual({ content: 'spec: {}\n', commit: tip });
    // The older tip still answers as it was.
    expect(await mirror.readFile(tip, 'a/shop.yaml', true)).toEqual({ content: 'spec: {image: a}\n', commit: first });
  });

  it('an answer handed out cannot change what the next reader gets', async () => {
    const mirror = createGitMirror(root, 'https://git.example.com/copies.git', 20_000);
    const tip = (await mirror.commit(undefined, 'f.yaml', 'x: 1\n', 'Create f'))!;
    const answer = await mirror.readFile(tip, 'f.yaml', true);
    answer.content = 'changed by a caller';
    expect((await mirror.readFile(tip, 'f.yaml', true)).content).toBe('x: 1\n');
  });
});
