import { createHash } from 'node:crypto';
import type * as api from '@portico/api';
import { setBounded } from '../bounded-map.js';
import { isPorticoError } from '../errors.js';
import type { Logger } from '../logger.js';
import { resources, type Cluster, type KubeObject } from '../ports/cluster.js';
import type { InstanceKey } from './instance-key.js';

/** How long a deleted instance's history stays readable (contract §11.2). */
export const historyRetentionMs = 90 * 24 * 60 * 60 * 1000;
/** Events kept per instance: the first (its creation) and the newest after it, so a document never outgrows a ConfigMap. */
export const maxHistoryEvents = 200;

/**
 * One instance's deployment history, keyed by its path (`<namespace>/<kind>/<name>`): it outlives the object, so
 * the same path reads it for 90 days after a deletion. A new object at the same path (another uid) starts a new
 * history. Besides the events it keeps what the recorder compares the object with.
 */
export interface HistoryDoc {
  instanceId: string;
  /** The object's uid; '' while a GitOps instance is only in Git. */
  uid: string;
  instanceName: string;
  namespace: string;
  kind: string;
  project: string;
  rgdName: string;
  createdAt: string;
  deploymentMode: string;
  lastGitCommit?: string;
  /** The RGD's newest revision when the history started: the revisions after it are changes during the instance's life. */
  rgdRevision?: number;
  /** The last generation looked at (a spec change moves it) and the health last recorded. */
  generation: number;
  health: string;
  /** The resourceVersion of the object last looked at: an older view of it (a replica behind) changes nothing. */
  observedVersion: string;
  deletedAt?: string;
  events: api.HistoryEvent[];
}

export interface HistoryStore {
  read(key: InstanceKey): Promise<HistoryDoc | undefined>;
  /**
   * Applies `change` to the stored document (undefined when there is none) and writes the result, guarded by the
   * version it read: a replica that loses a race reads again and applies `change` to the winner's document, so
   * an event with the same id is never written twice. `change` answers undefined when there is nothing to write.
   */
  update(key: InstanceKey, change: (doc: HistoryDoc | undefined) => HistoryDoc | undefined): Promise<HistoryDoc | undefined>;
  /** Removes the histories of instances deleted more than 90 days ago; answers how many. */
  sweep(now: Date): Promise<number>;
}

const recordLabel = 'portico.dev/record';
const recordValue = 'instance-history';
const deletedAtAnnotation = 'portico.dev/deleted-at';
const instanceAnnotation = 'portico.dev/instance';

export const historyId = (key: InstanceKey) => `${key.namespace}/${key.kind}/${key.name}`;
export const historyObjectName = (key: InstanceKey) => `portico-history-${createHash('sha256').update(historyId(key)).digest('hex').slice(0, 24)}`;

/** Appends the events whose id is not there yet, keeping the first and the newest within maxHistoryEvents. */
export function withEvents(doc: HistoryDoc, events: api.HistoryEvent[]): HistoryDoc {
  const ids = new Set(doc.events.map((e) => e.id));
  const fresh = events.filter((e) => !ids.has(e.id));
  if (fresh.length === 0) return doc;
  const all = [...doc.events, ...fresh];
  const kept = all.length > maxHistoryEvents ? [all[0]!, ...all.slice(all.length - maxHistoryEvents + 1)] : all;
  const lastCommit = [...fresh].reverse().find((e) => e.gitCommitSha)?.gitCommitSha;
  return { ...doc, events: kept, ...(lastCommit ? { lastGitCommit: lastCommit } : {}) };
}

export const isExpired = (doc: Pick<HistoryDoc, 'deletedAt'>, now: Date) =>
  doc.deletedAt !== undefined && now.getTime() - Date.parse(doc.deletedAt) > historyRetentionMs;

function parseDoc(object: KubeObject): HistoryDoc | undefined {
  try {
    const doc = JSON.parse(object.data?.history ?? '') as HistoryDoc;
    return doc && typeof doc.instanceId === 'string' && Array.isArray(doc.events) ? doc : undefined;
  } catch {
    return undefined; // edited by hand into something unreadable: the recorder starts it again
  }
}

function toObject(namespace: string, key: InstanceKey, doc: HistoryDoc): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: historyObjectName(key),
      namespace,
      labels: { 'app.kubernetes.io/managed-by': 'portico', [recordLabel]: recordValue },
      annotations: { [instanceAnnotation]: doc.instanceId, ...(doc.deletedAt ? { [deletedAtAnnotation]: doc.deletedAt } : {}) },
    },
    data: { history: JSON.stringify(doc) },
  };
}

/** Histories kept as ConfigMaps in Portico's namespace: every replica and restart reads the same ones. */
export function createHistoryStore(deps: { cluster: Cluster; namespace: string; logger: Logger }): HistoryStore {
  const { cluster, namespace, logger } = deps;
  const ref = resources.configMap;
  // The documents this replica wrote or read lately, with their version: the base of its next write.
  const cached = new Map<string, { doc: HistoryDoc; resourceVersion: string }>();
  const remember = (name: string, object: KubeObject) => {
    const doc = parseDoc(object);
    if (doc && object.metadata.resourceVersion) setBounded(cached, 2_000, name, { doc, resourceVersion: object.metadata.resourceVersion });
    return doc;
  };

  const fetch = async (name: string) => {
    const object = await cluster.get(ref, name, namespace);
    if (!object) {
      cached.delete(name);
      return undefined;
    }
    return { doc: remember(name, object), resourceVersion: object.metadata.resourceVersion };
  };

  return {
    async read(key) {
      return (await fetch(historyObjectName(key)))?.doc;
    },

    async update(key, change) {
      const name = historyObjectName(key);
      let current: { doc: HistoryDoc | undefined; resourceVersion?: string } | undefined = cached.get(name) ?? (await fetch(name));
      for (let attempt = 0; attempt < 10; attempt++) {
        const next = change(current?.doc);
        if (!next) return current?.doc;
        try {
          const object = toObject(namespace, key, next);
          const written = current
            ? await cluster.patch(ref, name, { metadata: { annotations: object.metadata.annotations }, data: object.data }, { namespace, resourceVersion: current.resourceVersion })
            : await cluster.create(ref, object);
          remember(name, written);
          return next;
        } catch (err) {
          if (!(isPorticoError(err) && (err.code === 'CONFLICT' || err.code === 'NOT_FOUND'))) throw err;
          current = await fetch(name); // another replica wrote first (or removed it): apply the change to what is there
        }
      }
      logger.warn({ instance: historyId(key) }, 'gave up recording an instance history entry after repeated conflicts');
      return current?.doc;
    },

    async sweep(now) {
      const { items } = await cluster.list(ref, { namespace, labelSelector: `${recordLabel}=${recordValue}` });
      let removed = 0;
      for (const object of items) {
        const deletedAt = object.metadata.annotations?.[deletedAtAnnotation];
        if (!deletedAt || !isExpired({ deletedAt }, now)) continue;
        try {
          await cluster.delete(ref, object.metadata.name, namespace);
          cached.delete(object.metadata.name);
          removed++;
        } catch (err) {
          if (!(isPorticoError(err) && err.code === 'NOT_FOUND')) throw err;
        }
      }
      return removed;
    },
  };
}
