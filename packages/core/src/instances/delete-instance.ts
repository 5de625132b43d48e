import type { Instance } from '@portico/api';
import type { Actor } from '../actor.js';
import { isPorticoError, notFound } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Cluster } from '../ports/cluster.js';
import type { InstanceKey } from '../types.js';
import type { IndexedInstance, InstanceIndex } from './index-types.js';
import { describeKey, shortName, timestamp, type InstanceAccess } from './instance-access.js';
import { toInstance } from './instance-resource.js';
import { readTimeline, timelineAnnotation, withEntry } from './timeline.js';

interface DeleteInstanceDeps {
  cluster: Cluster;
  logger: Logger;
  index: InstanceIndex;
  access: InstanceAccess;
}

/** Best effort: a deletion is not refused because its history entry could not be written. */
async function recordDeletion({ cluster, logger }: DeleteInstanceDeps, actor: Actor, item: IndexedInstance) {
  const entry = { timestamp: timestamp(), type: 'deleted' as const, actor: actor.id, message: 'deletion requested' };
  try {
    const { name, namespace } = item.object.metadata;
    const current = (await cluster.get(item.ref, name, namespace)) ?? item.object;
    const entries = readTimeline(current);
    const resourceVersion = current.metadata.resourceVersion;
    await cluster.patch(item.ref, name, { metadata: { annotations: { [timelineAnnotation]: withEntry(entries, entry) } } }, { namespace, resourceVersion });
  } catch (err) {
    logger.warn({ err, instance: item.id }, 'could not record the deletion in the instance timeline');
  }
}

/** A deletion (or, for Git modes, the manifest's removal); the answer is the instance on its way out. */
export async function deleteInstance(deps: DeleteInstanceDeps, actor: Actor, key: InstanceKey): Promise<Instance> {
  const { cluster, logger, index, access } = deps;
  const item = access.getVisible(actor, key);
  access.requireAllowed(actor, 'delete', item);
  const namespace = key.namespace || undefined;
  const mode = item.instance.deploymentMode;
  if (mode !== 'direct') {
    const sha = await access.commitManifest({ project: item.project, key }, undefined, `Delete ${key.kind} ${shortName(key)} in project ${item.project}\n\nRequested by ${actor.subject} through Portico.`);
    // GitOps: removing the file is the deletion; the controller prunes the resource.
    if (mode === 'gitops') return { ...item.instance, status: { ...item.instance.status, state: 'DELETING' }, health: 'Progressing', gitCommit: sha };
  }
  await recordDeletion(deps, actor, item);
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
