import { isDeepStrictEqual } from 'node:util';

/** Status blocks the simulated kro controller writes, shaped like the ones kro itself writes. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  observedGeneration: number;
  lastTransitionTime: string;
}

export type ConditionSpec = Omit<Condition, 'observedGeneration' | 'lastTransitionTime'>;

const cond = (type: string, status: Condition['status'], reason: string, message: string): ConditionSpec => ({ type, status, reason, message });

/** Kubernetes convention: lastTransitionTime moves only when a condition's status flips. */
export function withTransitions(previous: unknown, next: ConditionSpec[], generation: number, now: string): Condition[] {
  const before = Array.isArray(previous) ? (previous as Partial<Condition>[]) : [];
  return next.map((c) => {
    const old = before.find((p) => p?.type === c.type);
    const lastTransitionTime = old && old.status === c.status && typeof old.lastTransitionTime === 'string' ? old.lastTransitionTime : now;
    return { ...c, observedGeneration: generation, lastTransitionTime };
  });
}

/** Statuses are plain JSON, so a structural comparison (key order aside) says whether a write is needed. */
export const sameStatus = (a: unknown, b: unknown) => isDeepStrictEqual(a ?? null, b ?? null);

export const rgdActiveConditions = (crd: string): ConditionSpec[] => [
  cond('GraphVerified', 'True', 'Verified', 'resource graph and schema are valid'),
  cond('CustomResourceDefinitionSynced', 'True', 'Synced', `custom resource definition ${crd} is served`),
  cond('ReconcilerReady', 'True', 'Running', 'instance reconciler is running'),
  cond('Ready', 'True', 'Ready', 'resource graph definition is ready'),
];

export const rgdInactiveConditions = (message: string): ConditionSpec[] => [
  cond('GraphVerified', 'False', 'InvalidResourceGraph', message),
  cond('Ready', 'False', 'InvalidResourceGraph', message),
];

const managed = [
  cond('InstanceManaged', 'True', 'Managed', 'instance is managed by kro'),
  cond('GraphResolved', 'True', 'Resolved', 'runtime graph created and all resources resolved'),
];

const readyCount = (ready: number, total: number) => `${ready}/${total} resources ready`;

export const progressingConditions = (ready: number, total: number, next: string | undefined): ConditionSpec[] => [
  ...managed,
  cond('ResourcesReady', 'False', 'Progressing', readyCount(ready, total)),
  cond('Ready', 'False', 'Progressing', next ? `waiting for resource "${next}"` : 'waiting for resources'),
];

export const activeConditions = (total: number): ConditionSpec[] => [
  ...managed,
  cond('ResourcesReady', 'True', 'AllResourcesReady', readyCount(total, total)),
  cond('Ready', 'True', 'AllResourcesReady', 'all resources are ready'),
];

export const failedConditions = (ready: number, total: number, resourceId: string): ConditionSpec[] => [
  ...managed,
  cond('ResourcesReady', 'False', 'ResourceFailed', `${readyCount(ready, total)}; resource "${resourceId}" failed`),
  cond('Ready', 'False', 'ResourceFailed', `resource "${resourceId}" failed to become ready (simulated failure)`),
];

export const deletingConditions = (previous: unknown): ConditionSpec[] => {
  const kept = (Array.isArray(previous) ? (previous as Condition[]) : [])
    .filter((c) => c && c.type !== 'Ready')
    .map((c) => cond(c.type, c.status, c.reason, c.message));
  return [...kept, cond('Ready', 'False', 'Deleting', 'deleting managed resources')];
};

/** How many resources the walk has marked ready, read back from the ResourcesReady message. */
export function readyCountOf(conditions: unknown): number {
  const c = Array.isArray(conditions) ? (conditions as Condition[]).find((x) => x?.type === 'ResourcesReady') : undefined;
  const m = c && typeof c.message === 'string' ? /^(\d+)\/\d+ resources ready/.exec(c.message) : null;
  return m ? Number(m[1]) : 0;
}

export function observedGenerationOf(conditions: unknown): number | undefined {
  const c = Array.isArray(conditions) ? (conditions as Condition[]).find((x) => x?.type === 'Ready') : undefined;
  return typeof c?.observedGeneration === 'number' ? c.observedGeneration : undefined;
}
