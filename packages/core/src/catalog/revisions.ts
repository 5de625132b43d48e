import type * as api from '@portico/api';
import { notFound } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Disposable } from '../ports/cluster.js';
import { diffSpecs } from './revision-content.js';
import type { RevisionRecord, RevisionStore } from './revision-store.js';
import type { CatalogEntry } from './types.js';

/** Revisions kept per RGD: enough for "what changed lately", bounded so a flapping RGD cannot fill the cluster. */
export const maxRevisionsPerRgd = 50;

/** A revision recorded or removed, for the live stream (`revision_update`). */
export interface RevisionNotice {
  action: 'add' | 'update' | 'delete';
  rgdName: string;
  revision: number;
  project?: string;
  /** Names this notice the same way on every replica, so it is published once. */
  claim: string;
}

export interface RevisionLog {
  /** A catalog entry was seen (added or changed): a revision is recorded when its `spec` is one not recorded last. */
  observe(entry: CatalogEntry): void;
  /** The RGD is gone from the cluster: its revisions go with it. */
  forget(entry: Pick<CatalogEntry, 'name' | 'project'>): void;
  /** The newest revision number of an RGD (0 before the first). */
  latest(name: string): number;
  /** Revisions of an RGD, oldest first (what the timeline marks). */
  records(name: string): readonly RevisionRecord[];
  list(entry: CatalogEntry): api.GraphRevisionList;
  detail(entry: CatalogEntry, revisionNumber: number): Promise<api.GraphRevisionDetail>;
  diff(entry: CatalogEntry, a: number, b: number): Promise<api.RevisionDiff>;
  /** Called when an RGD's newest revision number changed (its entries carry it). */
  onLatestChanged(listener: (name: string) => void): Disposable;
  onNotice(listener: (notice: RevisionNotice) => void): Disposable;
  /** Resolves when every change seen so far has been recorded (tests, shutdown). */
  idle(): Promise<void>;
  close(): void;
}

const stamp = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');
/** Another replica has recorded a newer version of the same object than the one this replica is looking at. */
const isOlder = (entry: CatalogEntry, latest: RevisionRecord) =>
  entry.uid !== undefined && entry.uid === latest.uid && entry.generation !== undefined && latest.generation !== undefined && entry.generation <= latest.generation;

/**
 * The revisions of every catalog RGD's `spec`, kept in the cluster (`store`) and mirrored in memory without their
 * snapshots. Every replica runs the same steps on the same informer events: it proposes the next number, and the
 * store's create decides who records it; the others read the winner's and agree. Work is queued per RGD, newest
 * version only, after the stored revisions have been read once.
 */
export function createRevisionLog(deps: { store: RevisionStore; logger?: Logger; now?: () => Date }): RevisionLog {
  const { store, logger } = deps;
  const now = deps.now ?? (() => new Date());
  const known = new Map<string, RevisionRecord[]>(); // oldest first, at most maxRevisionsPerRgd
  const conditionsSeen = new Map<string, string>();
  const waiting = new Map<string, CatalogEntry>();
  const chains = new Map<string, Promise<void>>();
  const latestListeners = new Set<(name: string) => void>();
  const noticeListeners = new Set<(notice: RevisionNotice) => void>();
  let closed = false;

  const notify = (notice: Omit<RevisionNotice, 'claim'>, claim: string) => {
    for (const listener of noticeListeners) listener({ ...notice, claim });
  };
  const latestOf = (name: string) => known.get(name)?.at(-1);

  /** Takes a stored revision into memory; true when it is news here. */
  const learn = (record: RevisionRecord, entry?: Pick<CatalogEntry, 'project'>): boolean => {
    const list = known.get(record.rgdName) ?? [];
    if (list.some((r) => r.revisionNumber === record.revisionNumber)) return false;
    const before = list.at(-1)?.revisionNumber ?? 0;
    list.push(record);
    list.sort((a, b) => a.revisionNumber - b.revisionNumber);
    known.set(record.rgdName, list.slice(-maxRevisionsPerRgd));
    if (record.revisionNumber > before) {
      for (const listener of latestListeners) listener(record.rgdName);
      if (entry) notify({ action: 'add', rgdName: record.rgdName, revision: record.revisionNumber, ...(entry.project ? { project: entry.project } : {}) }, `revision:${record.rgdName}:${record.revisionNumber}:add`);
    }
    return true;
  };

  const loaded: Promise<void> = (async () => {
    for (let delay = 250; !closed; delay = Math.min(delay * 2, 5_000)) {
      try {
        const records = await store.loadAll();
        for (const record of records.sort((a, b) => a.revisionNumber - b.revisionNumber)) learn(record);
        return;
      } catch (err) {
        logger?.warn({ err }, 'could not read the stored RGD revisions; retrying');
        await new Promise((resolve) => setTimeout(resolve, delay).unref?.());
      }
    }
  })();

  const prune = async (name: string, newest: number) => {
    for (let n = newest - maxRevisionsPerRgd; n >= 1 && n > newest - maxRevisionsPerRgd - 5; n--) await store.delete(name, n);
  };

  async function record(entry: CatalogEntry): Promise<void> {
    for (let attempt = 0; attempt < 8 && !closed; attempt++) {
      const latest = latestOf(entry.name);
      if (latest?.contentHash === entry.specHash) {
        const conditions = JSON.stringify(entry.conditions);
        const seen = conditionsSeen.get(entry.name);
        conditionsSeen.set(entry.name, conditions);
        if (seen !== undefined && seen !== conditions) {
          const project = entry.project ? { project: entry.project } : {};
          notify({ action: 'update', rgdName: entry.name, revision: latest.revisionNumber, ...project }, `revision:${entry.name}:${latest.revisionNumber}:update:${entry.revision}`);
        }
        return;
      }
      if (latest && isOlder(entry, latest)) return;
      const revisionNumber = (latest?.revisionNumber ?? 0) + 1;
      const proposed: RevisionRecord = {
        rgdName: entry.name,
        revisionNumber,
        contentHash: entry.specHash,
        createdAt: stamp(now()),
        ...(entry.updatedBy ? { createdBy: entry.updatedBy } : {}),
        ...(entry.uid ? { uid: entry.uid } : {}),
        ...(entry.generation !== undefined ? { generation: entry.generation } : {}),
      };
      if (await store.create({ ...proposed, snapshot: entry.spec })) {
        conditionsSeen.set(entry.name, JSON.stringify(entry.conditions));
        learn(proposed, entry);
        await prune(entry.name, revisionNumber);
        return;
      }
      // Taken: another replica recorded this number. Take its revision and decide again.
      const winner = await store.get(entry.name, revisionNumber);
      if (!winner || !learn(winner, entry)) return;
    }
  }

  async function forgetNow(entry: Pick<CatalogEntry, 'name' | 'project'>): Promise<void> {
    const list = known.get(entry.name) ?? [];
    known.delete(entry.name);
    conditionsSeen.delete(entry.name);
    if (list.length === 0) return;
    for (const listener of latestListeners) listener(entry.name);
    const newest = list.at(-1)!.revisionNumber;
    for (const r of list) await store.delete(entry.name, r.revisionNumber);
    notify({ action: 'delete', rgdName: entry.name, revision: newest, ...(entry.project ? { project: entry.project } : {}) }, `revision:${entry.name}:${newest}:delete`);
  }

  const enqueue = (name: string, task: () => Promise<void>) => {
    const next: Promise<void> = (chains.get(name) ?? loaded)
      .then(() => (closed ? undefined : task()))
      .catch((err: unknown) => logger?.warn({ err, rgd: name }, 'could not record an RGD revision'))
      .finally(() => {
        if (chains.get(name) === next) chains.delete(name);
      });
    chains.set(name, next);
  };

  const toWire = (entry: CatalogEntry, r: RevisionRecord, newest: number): api.GraphRevision => ({
    revisionNumber: r.revisionNumber,
    rgdName: r.rgdName,
    namespace: '',
    // A revision's conditions are the RGD's while it is the newest; kro reports nothing about older specs.
    conditions: r.revisionNumber === newest ? entry.conditions.map((c) => ({ ...c })) : [],
    contentHash: r.contentHash,
    createdAt: r.createdAt,
    ...(r.createdBy ? { createdBy: r.createdBy } : {}),
  });

  const stored = async (entry: CatalogEntry, revisionNumber: number) => {
    const revision = revisionNumber >= 1 ? await store.get(entry.name, revisionNumber) : undefined;
    if (!revision) throw notFound('revision', `${entry.name}/${revisionNumber}`);
    return revision;
  };

  return {
    observe(entry) {
      const queued = waiting.has(entry.name);
      waiting.set(entry.name, entry);
      if (queued) return;
      enqueue(entry.name, async () => {
        const newest = waiting.get(entry.name);
        waiting.delete(entry.name);
        if (newest) await record(newest);
      });
    },

    forget(entry) {
      waiting.delete(entry.name);
      enqueue(entry.name, () => forgetNow(entry));
    },

    latest: (name) => latestOf(name)?.revisionNumber ?? 0,
    records: (name) => known.get(name) ?? [],

    list(entry) {
      const list = known.get(entry.name) ?? [];
      const newest = list.at(-1)?.revisionNumber ?? 0;
      const items = list.map((r) => toWire(entry, r, newest)).reverse();
      return { items, totalCount: items.length };
    },

    async detail(entry, revisionNumber) {
      const revision = await stored(entry, revisionNumber);
      return { ...toWire(entry, revision, latestOf(entry.name)?.revisionNumber ?? 0), snapshot: revision.snapshot };
    },

    async diff(entry, a, b) {
      const [rev1, rev2] = a <= b ? [a, b] : [b, a];
      const [before, after] = await Promise.all([stored(entry, rev1), stored(entry, rev2)]);
      const changes = diffSpecs(before.snapshot, after.snapshot);
      const identical = changes.added.length + changes.removed.length + changes.modified.length === 0;
      return { rgdName: entry.name, rev1, rev2, ...changes, identical };
    },

    onLatestChanged(listener) {
      latestListeners.add(listener);
      return { close: () => void latestListeners.delete(listener) };
    },

    onNotice(listener) {
      noticeListeners.add(listener);
      return { close: () => void noticeListeners.delete(listener) };
    },

    async idle() {
      await loaded;
      while (chains.size > 0) await Promise.all([...chains.values()]);
    },

    close() {
      closed = true;
      latestListeners.clear();
      noticeListeners.clear();
    },
  };
}
