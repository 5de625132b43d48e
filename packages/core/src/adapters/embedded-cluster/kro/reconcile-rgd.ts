import type { Informer } from '../../../cluster/informer-types.js';
import { describeResources } from '../../../catalog/resource-descriptions.js';
import { resources } from '../../../ports/cluster.js';
import { instanceRefOf } from './instance-kind.js';
import type { InstanceKinds } from './instance-kinds.js';
import { rgdActiveConditions, rgdInactiveConditions, sameStatus } from './kro-status.js';
import type { KroWrites } from './kro-writes.js';
import { analyseResources } from './resource-graph.js';

interface RgdReconcileDeps {
  rgdInformer: Informer;
  writes: KroWrites;
  kinds: Pick<InstanceKinds, 'adopt' | 'disown'>;
}

/**
 * An RGD becomes Active (its instance kind served) or Inactive (a bad graph, an incomplete schema). Returns true
 * when it wrote something (another look is needed to observe the result).
 */
export async function reconcileRgd(name: string, { rgdInformer, writes, kinds }: RgdReconcileDeps): Promise<boolean> {
  const rgd = writes.current(resources.rgd, rgdInformer, name);
  if (!rgd || rgd.metadata.deletionTimestamp) {
    kinds.disown(name);
    return false;
  }
  const graph = analyseResources(rgd.spec?.resources);
  const instanceRef = instanceRefOf(rgd);
  let desired: Record<string, unknown>;
  if (!instanceRef) desired = writes.statusPatch(rgd, 'Inactive', rgdInactiveConditions('spec.schema needs apiVersion and kind'));
  else if (!graph.ok) desired = writes.statusPatch(rgd, 'Inactive', rgdInactiveConditions(graph.message));
  else {
    desired = {
      ...writes.statusPatch(rgd, 'Active', rgdActiveConditions(`${instanceRef.plural}.${instanceRef.group}`)),
      topologicalOrder: graph.order,
    };
  }
  if (instanceRef && graph.ok) kinds.adopt(name, instanceRef, graph.order, describeResources(rgd.spec?.resources));
  else kinds.disown(name);
  if (sameStatus(rgd.status, desired)) return false;
  // The whole status is replaced: null out keys the new state does not have (e.g. topologicalOrder).
  const cleared = Object.fromEntries(Object.keys(rgd.status ?? {}).map((k) => [k, null]));
  return writes.write(resources.rgd, rgd, { status: { ...cleared, ...desired } });
}
