import type * as api from '@portico/api';
import { isLaterVersion } from '../cluster/resource-version.js';
import type { KubeObject } from '../ports/cluster.js';
import { historyId, withEvents, type HistoryDoc } from './history-store.js';
import type { InstanceKey } from './instance-key.js';
import { instanceAnnotations } from './instance-resource.js';

/**
 * The events of an instance's deployment history, derived from the object alone wherever possible: the request
 * that created it and the recorder that follows it build the same event with the same id, so whichever writes
 * first, it is written once.
 */

const place = (i: Pick<api.Instance, 'namespace' | 'name'>) => (i.namespace ? `${i.namespace}/${i.name}` : i.name);

/** A new document for an instance as it is now (or as its request describes it). */
export function freshDoc(key: InstanceKey, instance: api.Instance): HistoryDoc {
  return {
    instanceId: historyId(key),
    uid: instance.uid,
    instanceName: instance.name,
    namespace: instance.namespace,
    kind: instance.kind,
    project: instance.project,
    rgdName: instance.rgdName,
    createdAt: instance.createdAt,
    deploymentMode: instance.deploymentMode,
    generation: 0,
    health: '',
    observedVersion: '',
    events: [],
  };
}

/** `Created`, from the annotations Portico writes on every instance it creates (or the object's own times). */
export function createdEvent(instance: api.Instance, gitCommit?: string): api.HistoryEvent {
  return {
    id: instance.uid ? `created:${instance.uid}` : `created:git:${gitCommit ?? instance.createdAt}`,
    timestamp: instance.createdAt,
    eventType: 'Created',
    status: 'Pending',
    ...(instance.createdBy ? { user: instance.createdBy } : {}),
    deploymentMode: instance.deploymentMode,
    message: `Created ${instance.kind} ${place(instance)} from rgd ${instance.rgdName}`,
    details: { rgdName: instance.rgdName, namespace: instance.namespace },
  };
}

/** Where a Git-mode change went: the repository and branch when the deployment knows them. */
export interface GitTarget {
  commit: string;
  repository?: string;
  branch?: string;
}

/** The steps of a change committed to Git: the manifest, the push and, in `gitops` mode, the wait for the controller. */
export function gitEvents(instance: api.Instance, git: GitTarget, user: string, timestamp: string, verb: 'Created' | 'Updated' | 'Deleted'): api.HistoryEvent[] {
  const where = { gitCommitSha: git.commit, ...(git.repository ? { gitRepository: git.repository } : {}), ...(git.branch ? { gitBranch: git.branch } : {}) };
  const common = { timestamp, user, deploymentMode: instance.deploymentMode };
  const events: api.HistoryEvent[] = [
    { id: `manifest:${git.commit}`, eventType: 'ManifestGenerated', status: 'ManifestGenerated', ...common, message: `${verb}: manifest for ${instance.kind} ${place(instance)} generated` },
    { id: `pushed:${git.commit}`, eventType: 'PushedToGit', status: 'PushedToGit', ...common, ...where, message: `Manifest pushed to ${git.repository ?? 'the GitOps repository'}`, details: { commit: git.commit } },
  ];
  if (instance.deploymentMode === 'gitops') {
    events.push({ id: `waiting:${git.commit}`, eventType: 'WaitingForSync', status: 'WaitingForSync', ...common, message: 'Waiting for the GitOps controller to apply the commit' });
  }
  return events;
}

/** A change of health as the field names it: Creating until the first Ready, Ready, Degraded, Failed, else StatusChanged. */
function statusEvent(doc: HistoryDoc, instance: api.Instance, object: KubeObject, timestamp: string): api.HistoryEvent {
  const wasReady = doc.events.some((e) => e.eventType === 'Ready');
  const [eventType, status]: [api.HistoryEventType, string] =
    instance.health === 'Healthy' ? ['Ready', 'Ready']
    : instance.health === 'Degraded' ? ['Degraded', 'Degraded']
    : instance.health === 'Unhealthy' ? ['Failed', 'Failed']
    : instance.health === 'Progressing' ? (wasReady ? ['StatusChanged', 'Progressing'] : ['Creating', 'Creating'])
    : ['StatusChanged', 'Unknown'];
  const previous = doc.events.at(-1)?.status ?? 'Pending';
  const ready = instance.conditions.find((c) => c.type === 'Ready')?.message;
  return {
    id: `status:${instance.uid}:${object.metadata.resourceVersion ?? timestamp}`,
    timestamp,
    eventType,
    status,
    user: 'system',
    message: `Status changed from ${previous} to ${status}${ready ? `: ${ready}` : ''}`,
    details: { previousStatus: previous, newStatus: status, state: instance.status.state },
  };
}

const isDeleting = (instance: api.Instance, object: KubeObject) => Boolean(object.metadata.deletionTimestamp) || instance.status.state === 'DELETING';

/**
 * Whether `reconcile` finds the same in both views of an object (its uid, generation, health and deletion): once
 * the earlier one is recorded, the later one has nothing to add. Most changes are kro's status writes that only
 * move the resourceVersion.
 */
export function sameRecordedState(a: { instance: api.Instance; object: KubeObject }, b: { instance: api.Instance; object: KubeObject }): boolean {
  return (
    a.instance.uid === b.instance.uid &&
    (a.object.metadata.generation ?? 1) === (b.object.metadata.generation ?? 1) &&
    a.instance.health === b.instance.health &&
    isDeleting(a.instance, a.object) === isDeleting(b.instance, b.object)
  );
}

/**
 * The document after looking at the object as it is now; undefined when there is nothing to record. A view older
 * than the one last recorded (a replica behind) records nothing.
 */
export function reconcile(doc: HistoryDoc | undefined, key: InstanceKey, instance: api.Instance, object: KubeObject, timestamp: string): HistoryDoc | undefined {
  const version = object.metadata.resourceVersion ?? '';
  let next = doc;
  const events: api.HistoryEvent[] = [];
  const gitOnly = next && next.uid === '' && !next.deletedAt && next.events.some((e) => e.eventType === 'Created');
  if (!next || (next.uid !== instance.uid && !gitOnly)) {
    // Nothing recorded yet, or a history of an earlier object at this path: this object's starts here.
    next = freshDoc(key, instance);
    events.push(createdEvent(instance));
  } else if (next.uid !== instance.uid) {
    // A GitOps instance committed earlier has been applied by the controller.
    next = { ...next, uid: instance.uid };
    events.push({ id: `synced:${instance.uid}`, timestamp, eventType: 'Synced', status: 'Synced', user: 'system', deploymentMode: instance.deploymentMode, message: 'The GitOps controller applied the commit' });
  } else if (version && next.observedVersion && (version === next.observedVersion || isLaterVersion(next.observedVersion, version))) {
    return undefined;
  }
  const generation = object.metadata.generation ?? 1;
  if (next.generation > 0 && generation > next.generation) {
    // Portico's own PATCH names the generation it produces, so a later `kubectl edit` is not put on its author.
    const annotations = object.metadata.annotations ?? {};
    const ours = annotations[instanceAnnotations.updatedGeneration] === String(generation);
    const by = ours ? annotations[instanceAnnotations.updatedBy] : undefined;
    events.push({
      id: `updated:${instance.uid}:${generation}`,
      timestamp: (ours && annotations[instanceAnnotations.updatedAt]) || timestamp,
      eventType: 'Updated',
      status: 'Updated',
      ...(by ? { user: by } : {}),
      deploymentMode: instance.deploymentMode,
      message: by ? `Spec updated (generation ${generation})` : `Spec changed outside Portico (generation ${generation})`,
      details: { generation },
    });
  }
  const withNew = withEvents({ ...next, generation, observedVersion: version || next.observedVersion }, events);
  const deleting = isDeleting(instance, object);
  // Before kro has looked at a new object its health is Unknown: that is no change worth a line.
  const unseen = instance.health === 'Unknown' && withNew.health === '';
  if (!deleting && !unseen && instance.health !== withNew.health) {
    return { ...withEvents(withNew, [statusEvent(withNew, instance, object, timestamp)]), health: instance.health };
  }
  // Only the version moved (kro's status writes between two states): nothing worth a write.
  const same = doc && next === doc && withNew.events === next.events && generation === doc.generation;
  return same ? undefined : withNew;
}

/** The deletion: an event (once, whoever records it first) and the time the 90 days of retention count from. */
export function markDeleted(doc: HistoryDoc | undefined, key: InstanceKey, instance: api.Instance, timestamp: string, opts: { user?: string; gone: boolean }): HistoryDoc | undefined {
  const base = doc && (doc.uid === instance.uid || doc.uid === '') ? doc : { ...freshDoc(key, instance), events: [createdEvent(instance)] };
  const id = `deleted:${instance.uid}`;
  const recorded = base.events.some((e) => e.id === id);
  const stamped = !opts.gone || base.deletedAt !== undefined;
  if (recorded && stamped && base === doc) return undefined;
  const event: api.HistoryEvent = { id, timestamp, eventType: 'Deleted', status: 'Deleted', ...(opts.user ? { user: opts.user } : {}), deploymentMode: instance.deploymentMode, message: `Instance ${instance.name} deleted` };
  const next = recorded ? base : withEvents(base, [event]);
  return stamped ? next : { ...next, deletedAt: timestamp };
}
