import type { KubeObject } from '../../../ports/cluster.js';
import type { ManagedKind } from './instance-kinds.js';
import { failureEvents, stepEvents, type KroEvent } from './kro-events.js';
import { KRO_FINALIZER, releasable, SIMULATE_FAILURE_ANNOTATION } from './kro-markers.js';
import {
  activeConditions,
  deletingConditions,
  failedConditions,
  observedGenerationOf,
  progressingConditions,
  readyCountOf,
  type ConditionSpec,
} from './kro-status.js';
import type { KroWrites } from './kro-writes.js';

/**
 * An instance walks its resources in dependency order, one resource per call, and can be made to fail or be
 * deleted. Returns true when it wrote something (another look is needed to observe the result).
 */
export async function reconcileInstance(kind: ManagedKind, inst: KubeObject, writes: KroWrites): Promise<boolean> {
  const { ref, order } = kind;
  const finalizers = inst.metadata.finalizers ?? [];
  const withoutOurs = () => {
    const rest = finalizers.filter((f) => f !== KRO_FINALIZER);
    return writes.write(ref, inst, { metadata: { finalizers: rest.length ? rest : null } });
  };
  if (kind.owner === undefined) return releasable(inst) ? withoutOurs() : false;

  const total = order.length;
  const setStatus = (state: string, conditions: ConditionSpec[], extra: Record<string, unknown> = {}, events: KroEvent[] = []) =>
    writes.write(ref, inst, { ...extra, status: writes.statusPatch(inst, state, conditions) }, { graph: kind.graph, list: events });
  const reconciling = (message: string): KroEvent[] => [{ type: 'Normal', reason: 'Reconciling', message }];
  const restartWalk = (why: string) => setStatus('IN_PROGRESS', progressingConditions(0, total, order[0]), {}, reconciling(why));

  if (inst.metadata.deletionTimestamp) {
    if (!finalizers.includes(KRO_FINALIZER)) return false;
    if (inst.status?.state !== 'DELETING') {
      return setStatus('DELETING', deletingConditions(inst.status?.conditions), {}, [{ type: 'Normal', reason: 'Deleting', message: 'Deleting managed resources' }]);
    }
    return withoutOurs();
  }
  if (!finalizers.includes(KRO_FINALIZER)) {
    return setStatus('IN_PROGRESS', progressingConditions(0, total, order[0]), { metadata: { finalizers: [...finalizers, KRO_FINALIZER] } }, reconciling(`Reconciling: ${total} resources to create`));
  }
  if (observedGenerationOf(inst.status?.conditions) !== (inst.metadata.generation ?? 1)) {
    return restartWalk(`Spec changed (generation ${inst.metadata.generation ?? 1}): reconciling`);
  }

  const failing = inst.metadata.annotations?.[SIMULATE_FAILURE_ANNOTATION];
  const failIndex = failing ? order.indexOf(failing) : -1;
  const state = inst.status?.state;
  if (state === 'ERROR') return failIndex >= 0 ? false : restartWalk('Retrying after the failure was cleared'); // annotation removed: kro retries
  const ready = Math.min(readyCountOf(inst.status?.conditions), total);
  if (failIndex >= 0 && ready >= failIndex) {
    return setStatus('ERROR', failedConditions(failIndex, total, failing!), {}, failureEvents(kind.graph, inst, failing!));
  }
  if (state === 'ACTIVE') return false;
  if (state !== 'IN_PROGRESS') return restartWalk('Reconciling');
  const nowReady = ready + 1;
  const created = stepEvents(kind.graph, inst, order[ready], nowReady, total);
  if (nowReady >= total) return setStatus('ACTIVE', activeConditions(total), {}, created);
  return setStatus('IN_PROGRESS', progressingConditions(nowReady, total, order[nowReady]), {}, created);
}
