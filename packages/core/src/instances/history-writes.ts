import type * as api from '@portico/api';
import type { Logger } from '../logger.js';
import { createdEvent, freshDoc, gitEvents, markDeleted, type GitTarget } from './history-entries.js';
import { withEvents, type HistoryDoc, type HistoryStore } from './history-store.js';
import type { InstanceKey } from './instance-key.js';

const stamp = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/** §13: the repository and branch a Git-mode instance lives in, when it says (gitInfo). */
const gitTarget = (instance: api.Instance, commit: string): GitTarget => ({
  commit,
  ...(instance.gitInfo ? { repository: instance.gitInfo.repositoryUrl, branch: instance.gitInfo.branch } : {}),
});

/**
 * What a request records in an instance's history that the object alone cannot tell: who deleted it, and the
 * commits of the Git modes. Best effort: a change is never refused because its history could not be written.
 */
export interface HistoryWrites {
  /** After a create: `Created`, and for the Git modes the manifest, the push and (gitops) the wait for the controller. */
  created(key: InstanceKey, instance: api.Instance): Promise<void>;
  /** After an update or deletion committed to Git. */
  committed(key: InstanceKey, instance: api.Instance, user: string, commit: string, verb: 'Updated' | 'Deleted'): Promise<void>;
  /** Before a deletion is sent to the cluster: the `Deleted` event with the user who asked. */
  deleting(key: InstanceKey, instance: api.Instance, user: string): Promise<void>;
  /** §13: the cluster object first matches a commit (the drift check's verdict): `Synced`, once per commit. */
  synced(key: InstanceKey, instance: api.Instance, commit: string): Promise<void>;
}

/** `revisionOf` answers an RGD's newest revision number, stamped on a history when it starts. */
export function createHistoryWrites(store: HistoryStore, logger: Logger, revisionOf: (rgdName: string) => number): HistoryWrites {
  const guarded = async (key: InstanceKey, what: string, change: (doc: HistoryDoc | undefined) => HistoryDoc | undefined) => {
    try {
      await store.update(key, change);
    } catch (err) {
      logger.warn({ err, instance: `${key.namespace}/${key.kind}/${key.name}` }, `could not record ${what} in the instance history`);
    }
  };
  /** A document for this object: the stored one, unless it is another (earlier) object's at the same path. */
  const docFor = (doc: HistoryDoc | undefined, key: InstanceKey, instance: api.Instance): HistoryDoc => {
    const same = doc && !doc.deletedAt && (doc.uid === instance.uid || !doc.uid || !instance.uid);
    return same ? doc : { ...freshDoc(key, instance), rgdRevision: revisionOf(instance.rgdName), events: [createdEvent(instance, instance.gitCommit)] };
  };

  return {
    created(key, instance) {
      const git = instance.gitCommit ? gitEvents(instance, gitTarget(instance, instance.gitCommit), instance.createdBy, instance.createdAt, 'Created') : [];
      return guarded(key, 'a creation', (doc) => {
        const base = docFor(doc, key, instance);
        const next = withEvents(base, [createdEvent(instance, instance.gitCommit), ...git]);
        return next === doc ? undefined : next;
      });
    },

    committed(key, instance, user, commit, verb) {
      return guarded(key, 'a commit', (doc) => {
        const next = withEvents(docFor(doc, key, instance), gitEvents(instance, gitTarget(instance, commit), user, stamp(), verb));
        return next === doc ? undefined : next;
      });
    },

    deleting(key, instance, user) {
      return guarded(key, 'a deletion', (doc) => markDeleted(doc, key, instance, stamp(), { user, gone: false }));
    },

    synced(key, instance, commit) {
      const event: api.HistoryEvent = {
        id: `synced:${commit}`, timestamp: stamp(), eventType: 'Synced', status: 'Synced', user: 'system', deploymentMode: instance.deploymentMode,
        gitCommitSha: commit, message: `The cluster matches commit ${commit.slice(0, 12)}`,
      };
      return guarded(key, 'a sync', (doc) => {
        const next = withEvents(docFor(doc, key, instance), [event]);
        return next === doc ? undefined : next;
      });
    },
  };
}
