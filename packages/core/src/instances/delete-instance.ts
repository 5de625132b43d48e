import type { Instance } from '@portico/api';
import type { Actor } from '../actor.js';
import { isPorticoError, notFound } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Cluster } from '../ports/cluster.js';
import type { InstanceKey } from '../types.js';
import type { HistoryWrites } from './history-writes.js';
import type { InstanceIndex } from './index-types.js';
import { commitMessage, describeKey, type InstanceAccess } from './instance-access.js';
import { toInstance } from './instance-resource.js';

interface DeleteInstanceDeps {
  cluster: Cluster;
  logger: Logger;
  index: InstanceIndex;
  access: InstanceAccess;
  /** Records who asked for the deletion (and its commit) in the instance's history. */
  history?: HistoryWrites;
}

/** A deletion (or, for Git modes, the manifest's removal); the answer is the instance on its way out. */
export async function deleteInstance(deps: DeleteInstanceDeps, actor: Actor, key: InstanceKey): Promise<Instance> {
  const { cluster, logger, index, access } = deps;
  const item = access.getVisible(actor, key);
  access.requireAllowed(actor, 'delete', item);
  const namespace = key.namespace || undefined;
  const mode = item.instance.deploymentMode;
  if (mode !== 'direct') {
    // Git first (the one step that can fail and be left undone): the file goes in a pushed commit, or nothing happens.
    const placement = access.placementOf(item.object, item.project, key);
    const pushed = await access.commitManifest(item.project, placement, undefined, commitMessage('Delete', key, item.project, actor));
    await deps.history?.committed(key, item.instance, actor.id, pushed.sha, 'Deleted');
    // GitOps: removing the file is the deletion; the controller prunes the resource.
    if (mode === 'gitops') {
      await deps.history?.deleting(key, item.instance, actor.id);
      return { ...item.instance, status: { ...item.instance.status, state: 'DELETING' }, health: 'Progressing', gitCommit: pushed.sha };
    }
  }
  // Before the object goes: whoever records the deletion first writes it once, and the request knows who asked.
  await deps.history?.deleting(key, item.instance, actor.id);
  try {
    await cluster.delete(item.ref, key.name, namespace);
  } catch (err) {
    if (isPorticoError(err) && err.code === 'NOT_FOUND') throw notFound('instance', describeKey(key));
    throw err;
  }
  logger.info({ project: item.project, instance: describeKey(key), by: actor.id }, 'instance deletion requested');
  await index.waitFor(key, { deleted: true });
  // kro keeps its finalizer until the managed resources are gone; the answer is the instance on its way out.
  const after = (await cluster.get(item.ref, key.name, namespace)) ?? item.object;
  const instance = toInstance(after, { isClusterScoped: !item.ref.namespaced, rgdName: item.instance.rgdName });
  return { ...instance, status: { ...instance.status, state: 'DELETING' }, health: 'Progressing' };
}
