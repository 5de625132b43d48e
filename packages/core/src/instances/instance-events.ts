import type * as api from '@portico/api';
import { deepEqual } from '../json-equal.js';
import { withSplicedJsonText } from '../json-text.js';
import { maskSecretKeys } from '../redaction/secret-keys.js';
import type { DomainEvent } from '../types.js';
import type { IndexChange, IndexedInstance } from './instance-index.js';

/** Ready resources from kro's `ResourcesReady` message (`"k/N resources ready"`), or all of them once ACTIVE. */
export function readyResourcesOf(instance: api.Instance, totalResources: number): number {
  if (instance.status.state === 'ACTIVE') return totalResources;
  const message = instance.conditions.find((c) => c.type === 'ResourcesReady')?.message ?? '';
  const match = /^(\d+)\s*\/\s*(\d+)/.exec(message);
  return match ? Number(match[1]) : 0;
}

/** What a user reads as the current step: the Ready condition's message, else ResourcesReady's. */
const progressMessage = (instance: api.Instance): string =>
  instance.conditions.find((c) => c.type === 'Ready')?.message ?? instance.conditions.find((c) => c.type === 'ResourcesReady')?.message ?? '';

export function deployProgress(item: IndexedInstance, totalResources: number): api.DeployProgress {
  const { instance } = item;
  return {
    instanceId: item.id,
    project: item.project,
    namespace: instance.namespace,
    kind: instance.kind,
    name: instance.name,
    phase: instance.status.state,
    totalResources,
    readyResources: readyResourcesOf(instance, totalResources),
    message: progressMessage(instance),
  };
}

const scope = (item: IndexedInstance) => ({
  object: item.rbacObject,
  project: item.project,
  namespace: item.instance.namespace,
  name: item.instance.name,
  uid: item.object.metadata.uid ?? item.id,
  resourceVersion: item.object.metadata.resourceVersion,
});

/**
 * The domain events one index change produces: always an `instance_update`; a `deploy_progress` when the state
 * or the ready count moved (or the instance is new); a `counts_changed` when an instance appeared or went away
 * (or moved project, which changes who counts it); a `drift_update` when a Git-mode instance's drift verdict moved.
 */
export function eventsForChange(change: IndexChange, totalResources: (item: IndexedInstance) => number): DomainEvent[] {
  const { current, previous, action } = change;
  const instance = current.instance;
  // A write that changes nothing a client is shown but the resourceVersion (a finalizer added or removed, an
  // annotation Portico does not show, managedFields) is not a status change: every subscriber of the project
  // would otherwise get the same state again.
  if (action === 'update' && previous && previous.project === current.project && onlyVersionChanged(previous.instance, instance)) return [];
  // The instance last: the event's JSON reuses the text the index's instance carries (made once per version,
  // shared with every list and get that sends it). A live frame fans out to every socket that may see the
  // instance and lands in browser consoles and proxies' logs: credentials in its values (`DB_PASSWORD`,
  // `apiToken`) are masked there; GET of the instance still answers them to whoever may read it.
  const update: api.InstanceUpdate = withSplicedJsonText(
    { action, namespace: instance.namespace, kind: instance.kind, name: instance.name, project: current.project, instance: liveCopy(instance) },
    'instance',
  );
  const events: DomainEvent[] = [{ type: 'instance_update', ...scope(current), data: update }];

  if (action !== 'delete') {
    const total = totalResources(current);
    const now = deployProgress(current, total);
    const before = action === 'update' && previous ? deployProgress(previous, total) : undefined;
    if (!before || before.phase !== now.phase || before.readyResources !== now.readyResources) {
      events.push({ type: 'deploy_progress', ...scope(current), data: now });
    }
  }
  if (action !== 'update' || (previous && previous.project !== current.project)) {
    events.push({ type: 'counts_changed', data: {} });
  }
  // §13: the verdict of the drift check moved (either way), or a new object arrives drifted.
  const drifted = instance.gitopsDrift === true;
  if (action !== 'delete' && drifted !== (previous?.instance.gitopsDrift === true) && (action === 'update' || drifted)) {
    const drift: api.DriftUpdate = { namespace: instance.namespace, kind: instance.kind, name: instance.name, drifted, projectId: current.project };
    events.push({ type: 'drift_update', ...scope(current), data: drift });
  }
  return events;
}

/** The instance as a live frame carries it: values under secret-named keys masked (the index's copy otherwise). */
const liveCopy = (instance: api.Instance): api.Instance => {
  const spec = maskSecretKeys(instance.spec);
  return spec === instance.spec ? instance : { ...instance, spec };
};

/** The fields a status change moves, compared first: most changes differ there, and spec can be large. */
const likelyToDiffer = ['updatedAt', 'health', 'status', 'conditions'] as const;

function onlyVersionChanged(before: api.Instance, after: api.Instance): boolean {
  if (before.resourceVersion === after.resourceVersion) return false;
  for (const key of likelyToDiffer) if (!deepEqual(before[key], after[key])) return false;
  for (const key of Object.keys(after) as (keyof api.Instance)[]) {
    if (key !== 'resourceVersion' && !deepEqual(before[key], after[key])) return false;
  }
  return Object.keys(before).length === Object.keys(after).length;
}

/** The source-dedupe key of a change (contract: `<uid>:<resourceVersion>:<type>`). */
export const claimOf = (change: IndexChange): string => {
  const meta = change.current.object.metadata;
  return `${meta.uid ?? change.current.id}:${meta.resourceVersion ?? ''}:${change.cause}`;
};
