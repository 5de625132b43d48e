import type { Health } from '@portico/api';
import type { KubeObject } from '../ports/cluster.js';

/** kro's instance states (status.state). */
export type KroState = 'IN_PROGRESS' | 'ACTIVE' | 'DELETING' | 'ERROR';

interface ConditionLike {
  type?: unknown;
  status?: unknown;
  reason?: unknown;
  observedGeneration?: unknown;
}

/** Health from the state alone, used when there is no (fresh) Ready condition to go by. */
export const healthOfState: Readonly<Record<string, Health>> = {
  IN_PROGRESS: 'Progressing',
  ACTIVE: 'Healthy',
  ERROR: 'Unhealthy',
  DELETING: 'Progressing',
};

/**
 * What a Ready=False means depends on where kro is: still reconciling (Progressing), reconciled but a resource
 * fell over afterwards (Degraded), or failed outright (Unhealthy).
 */
function healthOfNotReady(state: string | undefined, reason: unknown): Health {
  switch (state) {
    case 'ACTIVE':
      return 'Degraded';
    case 'ERROR':
      return 'Unhealthy';
    case 'IN_PROGRESS':
    case 'DELETING':
      return 'Progressing';
    default:
      return reason === 'ResourceFailed' ? 'Unhealthy' : 'Progressing';
  }
}

export function readyCondition(obj: Pick<KubeObject, 'status'>): ConditionLike | undefined {
  const conditions: unknown = obj.status?.conditions;
  if (!Array.isArray(conditions)) return undefined;
  return conditions.find((c: ConditionLike) => c && c.type === 'Ready') as ConditionLike | undefined;
}

/**
 * Health of a kro instance from its status: the Ready condition first, then status.state.
 * - An object on its way out (deletionTimestamp or state DELETING) is Progressing whatever Ready says: it is
 *   not something to call Healthy any more.
 * - A Ready condition written for an older generation than metadata.generation is stale: kro has not looked
 *   at the current spec yet, so the instance is Progressing.
 * - No status at all: Unknown (the controller has not seen it, or no controller runs, e.g. GitOps pending).
 */
export function instanceHealth(obj: Pick<KubeObject, 'metadata' | 'status'>): Health {
  const status = obj.status;
  const state = typeof status?.state === 'string' && status.state ? (status.state as string) : undefined;
  if (obj.metadata?.deletionTimestamp || state === 'DELETING') return 'Progressing';

  const ready = readyCondition(obj);
  if (ready) {
    const generation = obj.metadata?.generation;
    const observed = ready.observedGeneration;
    if (typeof generation === 'number' && typeof observed === 'number' && observed < generation) return 'Progressing';
    if (ready.status === 'True') return 'Healthy';
    if (ready.status === 'False') return healthOfNotReady(state, ready.reason);
    // Ready=Unknown: kro is still deciding.
    return state === 'ERROR' ? 'Unhealthy' : 'Progressing';
  }
  if (state) return healthOfState[state] ?? 'Unknown';
  return 'Unknown';
}
