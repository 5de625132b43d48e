import type * as api from '@portico/api';
import type { KubeObject } from '../ports/cluster.js';
import { healthOfState } from './health.js';

/** Kinds that report nothing about their health: configuration, networking glue and RBAC. */
const withoutHealth = new Set([
  'ConfigMap', 'Secret', 'Service', 'ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding', 'Namespace',
  'ResourceQuota', 'LimitRange', 'NetworkPolicy', 'Ingress', 'IngressClass', 'Endpoints', 'EndpointSlice', 'StorageClass', 'PriorityClass',
]);

export const hasHealth = (kind: string) => !withoutHealth.has(kind);

/** Worst first: a group is as healthy as its least healthy child that has a health. */
const severity: Record<api.ChildHealth, number> = { Unhealthy: 5, Degraded: 4, Progressing: 3, Unknown: 2, Healthy: 1, None: 0 };

export function worstHealth(healths: Iterable<api.ChildHealth>): api.ChildHealth {
  let worst: api.ChildHealth = 'None';
  for (const h of healths) if (severity[h] > severity[worst]) worst = h;
  return worst;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
type Condition = { type?: unknown; status?: unknown; reason?: unknown };
const conditionsOf = (obj: KubeObject): Condition[] => (Array.isArray(obj.status?.conditions) ? obj.status.conditions : []);
const condition = (obj: KubeObject, type: string) => conditionsOf(obj).find((c) => c?.type === type);

/** Workloads with replicas: all available is Healthy, a stalled rollout Unhealthy, some available Degraded. */
function replicated(obj: KubeObject): api.ChildHealth {
  const s = obj.status ?? {};
  const desired = typeof obj.spec?.replicas === 'number' ? obj.spec.replicas : obj.kind === 'DaemonSet' ? num(s.desiredNumberScheduled) : 1;
  const available = obj.kind === 'DaemonSet' ? num(s.numberAvailable) : obj.kind === 'StatefulSet' ? num(s.readyReplicas) : num(s.availableReplicas);
  const progressing = condition(obj, 'Progressing');
  if (progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded') return 'Unhealthy';
  if (condition(obj, 'ReplicaFailure')?.status === 'True') return 'Unhealthy';
  if (available >= desired && (num(s.updatedReplicas) >= desired || s.updatedReplicas === undefined)) return 'Healthy';
  if (available > 0) return 'Degraded';
  return 'Progressing';
}

const byPhase: Record<string, api.ChildHealth> = {
  Running: 'Healthy', Succeeded: 'Healthy', Bound: 'Healthy', Available: 'Healthy', Active: 'Healthy',
  Pending: 'Progressing', Failed: 'Unhealthy', Lost: 'Unhealthy', Unknown: 'Unknown',
};

/**
 * The health of a child object from its status: kind-specific rules for the workloads kro usually creates, then
 * the conventions most controllers follow (a Ready or Available condition, `status.phase`, kro's `status.state`
 * for nested instances). `None` for kinds without health; `Unknown` when the object says nothing.
 */
export function childHealth(obj: KubeObject): api.ChildHealth {
  if (!hasHealth(obj.kind)) return 'None';
  if (obj.metadata.deletionTimestamp) return 'Progressing';
  if (!obj.status || typeof obj.status !== 'object') return 'Unknown';
  switch (obj.kind) {
    case 'Deployment':
    case 'StatefulSet':
    case 'ReplicaSet':
    case 'DaemonSet':
      return replicated(obj);
    case 'Job':
      if (condition(obj, 'Failed')?.status === 'True') return 'Unhealthy';
      return condition(obj, 'Complete')?.status === 'True' ? 'Healthy' : 'Progressing';
    case 'Pod':
      if (obj.status.phase === 'Running') return condition(obj, 'Ready')?.status === 'True' ? 'Healthy' : 'Progressing';
      break;
  }
  const ready = condition(obj, 'Ready') ?? condition(obj, 'Available');
  if (ready?.status === 'True') return 'Healthy';
  if (ready?.status === 'False') return obj.status.state === 'ACTIVE' ? 'Degraded' : /fail|error/i.test(String(ready.reason ?? '')) ? 'Unhealthy' : 'Progressing';
  if (typeof obj.status.phase === 'string') return byPhase[obj.status.phase] ?? 'Unknown';
  if (typeof obj.status.state === 'string') return healthOfState[obj.status.state] ?? 'Unknown';
  return 'Unknown';
}
