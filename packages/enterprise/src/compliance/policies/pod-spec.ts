import type { KubeObject } from '@portico/core';

export interface Container {
  name?: string;
  image?: string;
  resources?: { limits?: Record<string, unknown>; requests?: Record<string, unknown> };
}

const isRecord = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The pod spec of a workload, wherever its kind keeps it: a Pod's `spec`, a Deployment's (StatefulSet,
 * DaemonSet, ReplicaSet, Job) `spec.template.spec`, a CronJob's `spec.jobTemplate.spec.template.spec`.
 */
function podSpecOf(obj: KubeObject): Record<string, any> | undefined {
  const spec = obj.spec;
  if (!isRecord(spec)) return undefined;
  if (obj.kind === 'Pod') return spec;
  if (isRecord(spec.template?.spec)) return spec.template.spec;
  if (isRecord(spec.jobTemplate?.spec?.template?.spec)) return spec.jobTemplate.spec.template.spec;
  return undefined;
}

/** Every container of the object's pod spec, init containers included ([] for objects without one). */
export function containersOf(obj: KubeObject): Container[] {
  const pod = podSpecOf(obj);
  if (!pod) return [];
  return [...(Array.isArray(pod.initContainers) ? pod.initContainers : []), ...(Array.isArray(pod.containers) ? pod.containers : [])].filter(isRecord);
}
