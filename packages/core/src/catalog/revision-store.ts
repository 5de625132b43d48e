import { createHash } from 'node:crypto';
import { isPorticoError } from '../errors.js';
import { resources, type Cluster, type KubeObject } from '../ports/cluster.js';

/** What is remembered of a revision besides its snapshot (which is read from the cluster on demand). */
export interface RevisionRecord {
  rgdName: string;
  revisionNumber: number;
  contentHash: string;
  createdAt: string;
  createdBy?: string;
  /** The RGD's uid and generation when it was recorded: a replica that is behind sees an older generation. */
  uid?: string;
  generation?: number;
}

export interface StoredRevision extends RevisionRecord {
  snapshot: Record<string, unknown>;
}

/**
 * Where revisions live: one ConfigMap per revision in Portico's namespace, named by the RGD and the number, so
 * every replica and every restart sees the same numbers, and creating one is the atomic "who records it": a
 * second replica racing for the same number gets CONFLICT and reads the winner's.
 */
export interface RevisionStore {
  /** Every stored revision, without snapshots (start-up). */
  loadAll(): Promise<RevisionRecord[]>;
  get(rgdName: string, revisionNumber: number): Promise<StoredRevision | undefined>;
  /** False when that number is taken already (another replica recorded it). */
  create(revision: StoredRevision): Promise<boolean>;
  /** Idempotent: an absent revision is not an error. */
  delete(rgdName: string, revisionNumber: number): Promise<void>;
}

const recordLabel = 'portico.dev/record';
const recordValue = 'rgd-revision';
const rgdLabel = 'portico.dev/rgd-hash';

/** RGD names may be 253 characters; a label value and a ConfigMap name have room for a digest of it. */
const rgdKey = (rgdName: string) => createHash('sha256').update(rgdName).digest('hex').slice(0, 20);
export const revisionObjectName = (rgdName: string, revisionNumber: number) => `portico-revision-${rgdKey(rgdName)}-${revisionNumber}`;

function toConfigMap(namespace: string, revision: StoredRevision): KubeObject {
  const data: Record<string, string> = {
    rgdName: revision.rgdName,
    revisionNumber: String(revision.revisionNumber),
    contentHash: revision.contentHash,
    createdAt: revision.createdAt,
    snapshot: JSON.stringify(revision.snapshot),
  };
  if (revision.createdBy) data.createdBy = revision.createdBy;
  if (revision.uid) data.uid = revision.uid;
  if (revision.generation !== undefined) data.generation = String(revision.generation);
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: revisionObjectName(revision.rgdName, revision.revisionNumber),
      namespace,
      labels: { 'app.kubernetes.io/managed-by': 'portico', [recordLabel]: recordValue, [rgdLabel]: rgdKey(revision.rgdName) },
      annotations: { 'portico.dev/rgd': revision.rgdName },
    },
    data,
  };
}

/** A stored revision, or undefined for a ConfigMap someone else wrote or edited into something unreadable. */
function recordOf(object: KubeObject): RevisionRecord | undefined {
  const data = object.data ?? {};
  const revisionNumber = Number(data.revisionNumber);
  if (!data.rgdName || !Number.isInteger(revisionNumber) || revisionNumber < 1 || !/^[0-9a-f]{64}$/.test(data.contentHash ?? '') || !data.createdAt) return undefined;
  const generation = Number(data.generation);
  return {
    rgdName: data.rgdName,
    revisionNumber,
    contentHash: data.contentHash!,
    createdAt: data.createdAt,
    ...(data.createdBy ? { createdBy: data.createdBy } : {}),
    ...(data.uid ? { uid: data.uid } : {}),
    ...(data.generation && Number.isInteger(generation) ? { generation } : {}),
  };
}

function snapshotOf(object: KubeObject): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(object.data?.snapshot ?? '');
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function createRevisionStore(cluster: Cluster, namespace: string): RevisionStore {
  const ref = resources.configMap;
  return {
    async loadAll() {
      const { items } = await cluster.list(ref, { namespace, labelSelector: `${recordLabel}=${recordValue}` });
      return items.map(recordOf).filter((r): r is RevisionRecord => r !== undefined);
    },

    async get(rgdName, revisionNumber) {
      const object = await cluster.get(ref, revisionObjectName(rgdName, revisionNumber), namespace);
      const record = object && recordOf(object);
      const snapshot = object && snapshotOf(object);
      return record && snapshot && record.rgdName === rgdName ? { ...record, snapshot } : undefined;
    },

    async create(revision) {
      try {
        await cluster.create(ref, toConfigMap(namespace, revision));
        return true;
      } catch (err) {
        if (isPorticoError(err) && err.code === 'CONFLICT') return false;
        throw err;
      }
    },

    async delete(rgdName, revisionNumber) {
      try {
        await cluster.delete(ref, revisionObjectName(rgdName, revisionNumber), namespace);
      } catch (err) {
        if (!(isPorticoError(err) && err.code === 'NOT_FOUND')) throw err;
      }
    },
  };
}

/** A store in memory, for a catalog without a cluster behind it (unit tests of the catalog alone). */
export function createMemoryRevisionStore(): RevisionStore {
  const stored = new Map<string, StoredRevision>();
  const key = (name: string, n: number) => `${name}\n${n}`;
  return {
    loadAll: async () => [...stored.values()].map(({ snapshot: _snapshot, ...record }) => record),
    get: async (name, n) => stored.get(key(name, n)),
    async create(revision) {
      if (stored.has(key(revision.rgdName, revision.revisionNumber))) return false;
      stored.set(key(revision.rgdName, revision.revisionNumber), structuredClone(revision));
      return true;
    },
    delete: async (name, n) => void stored.delete(key(name, n)),
  };
}
