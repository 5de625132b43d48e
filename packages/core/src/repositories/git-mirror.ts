import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { PorticoError } from '../errors.js';
import { baseGitEnv, type RemoteSession } from './git-remote.js';
import { runGit, type GitResult } from './git-run.js';

/**
 * A bare repository per remote URL on this replica, where commits are made with plumbing (no checkout): the
 * branch is fetched, the one file changed in a temporary index, the tree committed on top of the fetched tip and
 * pushed as a compare-and-swap of the branch. Nothing in it is authoritative: a new replica starts empty.
 */
export interface GitMirror {
  /** Fetches the branch; its tip, or undefined when the remote has no branches at all (a new, empty repository). */
  fetch(session: RemoteSession, branch: string): Promise<string | undefined>;
  /** The branch's tip as this copy last saw it (fetched or pushed here); undefined when it has not seen it. */
  knownTip(branch: string): Promise<string | undefined>;
  /** When this copy last learnt the branch's tip from the remote (a fetch, or its own push); 0 when never. */
  seenAt(branch: string): number;
  /** The file at `tip`; with `withCommit`, also the last commit that touched it (a history walk: reads only). */
  readFile(tip: string | undefined, file: string, withCommit?: boolean): Promise<{ content?: string; commit?: string }>;
  /** A commit with `file` set (removed when undefined) on top of `tip`; undefined when the tree would not change. */
  commit(tip: string | undefined, file: string, content: string | undefined, message: string): Promise<string | undefined>;
  /** `ok`, `stale` (the branch moved: fetch and redo), or `refused` with the remote's reason. */
  push(session: RemoteSession, commit: string, branch: string): Promise<PushOutcome>;
  /** ls-remote of every branch: whether the remote has any. */
  hasBranches(session: RemoteSession): Promise<boolean>;
}

/** How a push ended: on the remote, overtaken (fetch and redo), or refused with the remote's reason (a hook, a protected branch). */
export type PushOutcome = { outcome: 'ok' } | { outcome: 'stale' } | { outcome: 'refused'; reason: string; result: GitResult };

export class RemoteFailure extends Error {
  constructor(readonly result: GitResult) {
    super('git failed');
  }
}

export function createGitMirror(root: string, url: string, timeoutMs: number): GitMirror {
  const dir = path.join(root, `${createHash('sha256').update(url).digest('hex').slice(0, 24)}.git`);
  const localEnv = { ...baseGitEnv(root), GIT_DIR: dir };
  let ready: Promise<void> | undefined;
  const init = () =>
    (ready ??= (async () => {
      await mkdir(root, { recursive: true });
      const r = await runGit(['init', '-q', '--bare', '--template=', dir], { env: baseGitEnv(root), timeoutMs });
      // No automatic gc while commits are made beside fetches, and no hooks: a push runs none here.
      const settings = r.code === 0 ? [await runGit(['config', 'gc.auto', '0'], { env: localEnv, timeoutMs }), await runGit(['config', 'core.hooksPath', '/dev/null'], { env: localEnv, timeoutMs })] : [];
      if (r.code !== 0 || settings.some((s) => s.code !== 0)) {
        ready = undefined;
        throw new PorticoError('GITOPS_ERROR', 'could not prepare the local copy of the repository', { cause: 'git' });
      }
    })());
  const local = async (args: string[], opts: { input?: string; env?: Record<string, string> } = {}) => {
    await init();
    const r = await runGit(args, { env: { ...localEnv, ...opts.env }, timeoutMs, input: opts.input });
    if (r.code !== 0) throw new RemoteFailure(r);
    return r.stdout.trim();
  };
  /** Git against the remote: the session's environment (credentials, proxy) on this mirror. */
  const remote = async (session: RemoteSession, args: string[]) => {
    await init();
    return runGit(args, { env: { ...session.env, GIT_DIR: dir }, timeoutMs });
  };
  const trackingRef = (branch: string) => `refs/remotes/origin/${branch}`;
  const seen = new Map<string, number>();
  /**
   * Files already read, per tip: what a commit holds never changes, so a drift sweep that finds the branch where
   * it was reads each file (and walks its history) once, not once per period. Only the latest tips are kept.
   */
  const filesAt = new Map<string, Map<string, Promise<{ content?: string; commit?: string }>>>();
  const tipsKept = 16;

  const hasBranches = async (session: RemoteSession) => {
    const r = await remote(session, ['ls-remote', '--heads', session.gitUrl]);
    if (r.code !== 0) throw new RemoteFailure(r);
    return r.stdout.trim().length > 0;
  };

  return {
    async fetch(session, branch) {
      const r = await remote(session, ['fetch', '--no-tags', '--no-write-fetch-head', '--quiet', session.gitUrl, `+refs/heads/${branch}:${trackingRef(branch)}`]);
      if (r.code === 0) {
        seen.set(branch, Date.now());
        return local(['rev-parse', '--verify', `${trackingRef(branch)}^{commit}`]);
      }
      if (/couldn't find remote ref/i.test(r.stderr) && !(await hasBranches(session))) return undefined;
      throw new RemoteFailure(r);
    },

    hasBranches,

    async readFile(tip, file, withCommit = false) {
      if (!tip) return {};
      let files = filesAt.get(tip);
      if (!files) {
        if (filesAt.size >= tipsKept) filesAt.delete(filesAt.keys().next().value!);
        filesAt.set(tip, (files = new Map()));
      }
      const id = `${withCommit ? 'commit' : 'content'}:${file}`;
      let read = files.get(id);
      if (!read) {
        const fresh = readAt(tip, file, withCommit);
        files.set(id, (read = fresh));
        fresh.catch(() => files.get(id) === fresh && files.delete(id));
      }
      return { ...(await read) };
    },

    async commit(tip, file, content, message) {
      const index = path.join(root, `index-${randomBytes(8).toString('hex')}`);
      const env = { GIT_INDEX_FILE: index };
      try {
        await local(tip ? ['read-tree', tip] : ['read-tree', '--empty'], { env });
        // Mode 0 removes the entry (`--force-remove` wants a work tree, and a bare copy has none).
        if (content === undefined) await local(['update-index', '--index-info'], { env, input: `0 ${'0'.repeat(40)}\t${file}\n` });
        else {
          const blob = await local(['hash-object', '-w', '--stdin'], { input: content });
          await local(['update-index', '--add', '--cacheinfo', `100644,${blob},${file}`], { env });
        }
        const tree = await local(['write-tree'], { env });
        if (tip && tree === (await local(['rev-parse', `${tip}^{tree}`]))) return undefined;
        return await local(['commit-tree', tree, ...(tip ? ['-p', tip] : []), '-F', '-'], { input: message });
      } finally {
        await rm(index, { force: true });
      }
    },

    seenAt: (branch) => seen.get(branch) ?? 0,

    async knownTip(branch) {
      await init();
      const r = await runGit(['rev-parse', '--verify', '-q', `${trackingRef(branch)}^{commit}`], { env: localEnv, timeoutMs });
      return r.code === 0 ? r.stdout.trim() : undefined;
    },

    async push(session, commit, branch) {
      const r = await remote(session, ['push', '--porcelain', '--quiet', session.gitUrl, `${commit}:refs/heads/${branch}`]);
      if (r.code === 0) {
        // What the remote now has: the next write starts from it without a fetch (a stale guess only costs a retry).
        await local(['update-ref', trackingRef(branch), commit]);
        seen.set(branch, Date.now());
        return { outcome: 'ok' } as const;
      }
      const line = r.stdout.split('\n').find((l) => l.startsWith('!')) ?? '';
      // Overtaken: before sending (the remote's tip moved since the fetch) or while the remote updated its ref.
      if (/\[rejected\]/.test(line) && /fetch first|non-fast-forward|stale info/.test(line)) return { outcome: 'stale' } as const;
      if (/\[remote rejected\]/.test(line) && /failed to update ref|cannot lock ref|failed to lock/.test(line)) return { outcome: 'stale' } as const;
      const reason = /\[remote rejected\] \((.*)\)/.exec(line)?.[1] ?? /\[rejected\] \((.*)\)/.exec(line)?.[1];
      if (reason !== undefined) return { outcome: 'refused', reason, result: r } as const;
      throw new RemoteFailure(r);
    },
  };

  async function readAt(tip: string, file: string, withCommit: boolean): Promise<{ content?: string; commit?: string }> {
    const listed = await local(['ls-tree', '-z', tip, '--', file]);
    const match = /^\d+ blob ([0-9a-f]+)\t/.exec(listed);
    const commit = withCommit ? await local(['log', '-1', '--format=%H', tip, '--', file]) : undefined;
    if (!match) return commit ? { commit } : {};
    return { content: await catBlob(match[1]!), ...(commit ? { commit } : {}) };
  }

  /** Blob text exactly as stored (`local` trims its output). */
  async function catBlob(oid: string): Promise<string> {
    const r = await runGit(['cat-file', 'blob', oid], { env: localEnv, timeoutMs });
    if (r.code !== 0) throw new RemoteFailure(r);
    return r.stdout;
  }
}
