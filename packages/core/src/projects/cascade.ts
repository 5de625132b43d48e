import type { Actor } from '../actor.js';
import { childIdentity, type Catalog } from '../catalog/index.js';
import { conflict, isPorticoError } from '../errors.js';
import type { IndexedInstance, InstanceIndex } from '../instances/index-types.js';
import type { Logger } from '../logger.js';
import { asSeparateOperations } from '../operations/request-facts.js';
import { resources, type Cluster } from '../ports/cluster.js';
import type { EventsService, InstanceKey, InstancesService } from '../types.js';
import { createDeletionProgress, type DeletionProgress } from './deletion-progress.js';

/** What a project deletion needs of the instances: the index (every instance, whoever may see it) and the service. */
export interface ProjectInstances {
  index: Pick<InstanceIndex, 'inProject' | 'get' | 'onChange'>;
  /** The instances service as callers get it: each of its deletions is an operation of its own (audited, hooked). */
  service: Pick<InstancesService, 'delete'>;
}

interface CascadeDeps {
  instances: ProjectInstances;
  /** The instances' RGDs: how many resources each has kro make, and where. */
  catalog: Pick<Catalog, 'entry'>;
  cluster: Cluster;
  events: EventsService;
  logger?: Logger;
  /** How long the cascade waits for kro to finish deleting the instances (their managed resources) once asked. */
  waitMs: number;
}

/** What became of one instance the cascade deletes. */
interface Target {
  item: IndexedInstance;
  key: InstanceKey;
  /** "2 of 5", in every progress message of this instance. */
  position: string;
  totalResources: number;
  /** Where the Events of the instance and of its managed resources are (as its history reads them). */
  involved: { kind: string; name: string; namespace: string }[];
}

const keyOf = (item: IndexedInstance): InstanceKey => ({ namespace: item.instance.namespace, kind: item.instance.kind, name: item.instance.name });

/**
 * Deletes a project's instances, one after another, each through the instances service exactly as its own
 * deletion would run (the caller's permission, its deployment mode: a Git mode commits the manifest's removal),
 * then waits until kro has removed them (gitops ones are pruned by their GitOps controller: not waited for). Each
 * step is reported as `deploy_progress`. Throws, keeping the project, when one cannot be deleted or some are still
 * there after `waitMs`; a retry goes on from where this one stopped.
 */
export async function deleteProjectInstances(deps: CascadeDeps, actor: Actor, project: string, items: readonly IndexedInstance[]): Promise<void> {
  const progress = createDeletionProgress(deps.events);
  try {
    const waiting: Target[] = [];
    for (const [i, item] of items.entries()) {
      const target = describe(deps, item, `${i + 1} of ${items.length}`);
      if (await requestDeletion(deps, progress, actor, project, target)) waiting.push(target);
    }
    const remaining = await untilGone(deps, waiting, (target) => finish(deps, progress, target));
    if (remaining > 0) {
      throw conflict(`${remaining} instance(s) of project "${project}" are still being deleted; the project is kept: retry its deletion`, { instances: remaining });
    }
  } finally {
    await progress.delivered();
    progress.close();
  }
}

/** Where the instance's Events are: its own and those of the resources its RGD has kro make (as its history reads them). */
function describe(deps: CascadeDeps, item: IndexedInstance, position: string): Target {
  const key = keyOf(item);
  const graph = deps.catalog.entry(item.instance.rgdName)?.graph ?? [];
  const involved = [
    { kind: key.kind, name: key.name, namespace: key.namespace || 'default' },
    ...graph
      .filter((resource) => resource.kind)
      .map((resource) => {
        const { name, namespace } = childIdentity(resource, item.object);
        return { kind: resource.kind, name, namespace: namespace || 'default' };
      }),
  ];
  return { item, key, position, totalResources: graph.length, involved };
}

/** The error is the instance's 404 because it has left the index since the cascade listed it (deleted meanwhile). */
const wentMeanwhile = (deps: CascadeDeps, err: unknown, key: InstanceKey) =>
  isPorticoError(err) && err.code === 'NOT_FOUND' && !deps.instances.index.get(key);

/** Asks for one deletion; true when the cascade must wait for the object to go (every mode but gitops). */
async function requestDeletion(deps: CascadeDeps, progress: DeletionProgress, actor: Actor, project: string, target: Target): Promise<boolean> {
  const { item, key, position, totalResources } = target;
  const readyResources = item.instance.status.state === 'ACTIVE' ? totalResources : 0;
  // Asked for already (an earlier cascade that ran out of time): asking again would only repeat its commit.
  if (item.object.metadata.deletionTimestamp) {
    await progress.report(item, { phase: 'DELETING', readyResources, totalResources, message: `already being deleted (${position})` });
    return true;
  }
  await progress.report(item, { phase: 'DELETING', readyResources, totalResources, message: `deleting (${position}): project "${project}" is being deleted` });
  try {
    const answer = await asSeparateOperations(() => deps.instances.service.delete(actor, key));
    if (answer.deploymentMode !== 'gitops') return true;
    const commit = answer.gitCommit ? ` in commit ${answer.gitCommit.slice(0, 12)}` : '';
    await progress.report(item, { phase: 'DELETING', readyResources, totalResources, message: `removed from Git${commit} (${position}); its GitOps controller prunes it` });
    return false;
  } catch (err) {
    // Deleted by someone else since the cascade listed it: nothing to ask, only its going to report.
    if (wentMeanwhile(deps, err, key)) return true;
    const reason = err instanceof Error ? err.message : String(err);
    await progress.report(item, { phase: 'ERROR', readyResources, totalResources, message: `could not be deleted (${position}): ${reason}` });
    throw err;
  }
}

/** The instance is gone: reported, and the Events kro recorded about it and its resources go with it. */
async function finish(deps: CascadeDeps, progress: DeletionProgress, target: Target): Promise<void> {
  await progress.report(target.item, { phase: 'DELETED', readyResources: 0, totalResources: target.totalResources, message: `deleted (${target.position})` });
  // Instance history lists Events by kind and name: a project created again under the same name must not show a
  // new instance the old one's history. Best effort, like the recorder that wrote them.
  for (const o of target.involved) {
    try {
      const { items } = await deps.cluster.list(resources.event, { namespace: o.namespace, fieldSelector: `involvedObject.kind=${o.kind},involvedObject.name=${o.name}` });
      for (const event of items) await deps.cluster.delete(resources.event, event.metadata.name, o.namespace).catch(() => undefined);
    } catch (err) {
      deps.logger?.warn({ err, instance: target.item.id }, 'could not remove the Events of a deleted instance');
    }
  }
}

/** Resolves with how many of `targets` are still in the index after `deps.waitMs`; `onGone` runs for each that went. */
function untilGone(deps: CascadeDeps, targets: readonly Target[], onGone: (target: Target) => Promise<void>): Promise<number> {
  const { index } = deps.instances;
  const pending = new Map(targets.map((t) => [t.item.id, t]));
  const finishing: Promise<void>[] = [];
  const gone = (id: string) => {
    const target = pending.get(id);
    if (!target) return;
    pending.delete(id);
    finishing.push(onGone(target));
  };
  return new Promise<void>((resolve) => {
    const check = () => {
      if (pending.size === 0) done();
    };
    const subscription = index.onChange((change) => {
      if (change.action === 'delete') gone(change.current.id);
      check();
    });
    const timer = setTimeout(done, deps.waitMs);
    timer.unref?.();
    let settled = false;
    function done() {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      subscription.close();
      resolve();
    }
    // Some may have gone before the subscription started.
    for (const target of [...pending.values()]) if (!index.get(target.key)) gone(target.item.id);
    check();
  }).then(async () => {
    await Promise.allSettled(finishing);
    return pending.size;
  });
}
