import type * as api from '@portico/api';
import type { KubeObject } from '../ports/cluster.js';
import type { InstanceKey } from '../types.js';
import { rbacObject } from '@portico/api';
import { instanceHealth } from './health.js';
import { gitFieldsOf } from './git-fields.js';

/** Labels and annotations Portico puts on the instances it creates. */
export const instanceLabels = {
  project: 'portico.dev/project',
  deploymentMode: 'portico.dev/deployment-mode',
  rgd: 'portico.dev/rgd',
} as const;

export const instanceAnnotations = {
  createdBy: 'portico.dev/created-by',
  createdAt: 'portico.dev/created-at',
  gitCommit: 'portico.dev/git-commit',
  updatedBy: 'portico.dev/updated-by',
  updatedAt: 'portico.dev/updated-at',
  /** The generation a PATCH through Portico produced: the history puts that spec change on `updated-by`. */
  updatedGeneration: 'portico.dev/updated-generation',
} as const;

const deploymentModes: readonly api.DeploymentMode[] = ['direct', 'gitops', 'hybrid'];

/** The RBAC object of contract §5: `instances/<project>/<namespace>/<kind>/<name>` (`_` for no namespace). */
export const instanceObject = (project: string, key: InstanceKey): string =>
  rbacObject.instance(project, key.namespace, key.kind, key.name);

/** The index key and the `instanceId` of deploy_progress: `<namespace>/<kind>/<name>`. */
export const instanceId = (key: InstanceKey): string => `${key.namespace}/${key.kind}/${key.name}`;

export const keyOf = (obj: KubeObject): InstanceKey => ({
  namespace: obj.metadata.namespace ?? '',
  kind: obj.kind,
  name: obj.metadata.name,
});

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Conditions as the API shows them: only the documented fields, with the right types, never null. */
export function normaliseConditions(raw: unknown): api.Condition[] {
  if (!Array.isArray(raw)) return [];
  const out: api.Condition[] = [];
  for (const c of raw) {
    if (!c || typeof c !== 'object') continue;
    const type = str(c.type);
    const status = str(c.status);
    if (type === undefined || status === undefined) continue;
    const condition: api.Condition = { type, status };
    if (typeof c.reason === 'string') condition.reason = c.reason;
    if (typeof c.message === 'string') condition.message = c.message;
    if (typeof c.lastTransitionTime === 'string') condition.lastTransitionTime = c.lastTransitionTime;
    if (Number.isInteger(c.observedGeneration)) condition.observedGeneration = c.observedGeneration;
    out.push(condition);
  }
  return out;
}

const latest = (times: (string | undefined)[]): string | undefined => {
  let best: string | undefined;
  let bestMs = -Infinity;
  for (const t of times) {
    if (!t) continue;
    const ms = Date.parse(t);
    if (!Number.isNaN(ms) && ms > bestMs) {
      best = t;
      bestMs = ms;
    }
  }
  return best;
};

export interface InstanceContext {
  /** Whether the kind is cluster-scoped (from discovery / the RGD). */
  isClusterScoped: boolean;
  /** Used when the object carries no `portico.dev/rgd` label (created outside Portico). */
  rgdName?: string;
}

/** KubeObject → api.Instance. Total: a malformed object yields defaults, never null arrays or objects. */
export function toInstance(obj: KubeObject, ctx: InstanceContext): api.Instance {
  const meta = obj.metadata;
  const labels = { ...(meta.labels ?? {}) };
  const annotations = meta.annotations ?? {};
  const conditions = normaliseConditions(obj.status?.conditions);
  const mode = labels[instanceLabels.deploymentMode] as api.DeploymentMode;
  const createdAt = annotations[instanceAnnotations.createdAt] ?? meta.creationTimestamp ?? '';
  const updatedAt =
    latest([meta.creationTimestamp, annotations[instanceAnnotations.updatedAt], ...conditions.map((c) => c.lastTransitionTime)]) ??
    createdAt;
  const spec = obj.spec && typeof obj.spec === 'object' && !Array.isArray(obj.spec) ? (obj.spec as Record<string, unknown>) : {};
  const instance: api.Instance = {
    name: meta.name,
    namespace: ctx.isClusterScoped ? '' : (meta.namespace ?? ''),
    isClusterScoped: ctx.isClusterScoped,
    project: labels[instanceLabels.project] ?? '',
    rgdName: labels[instanceLabels.rgd] ?? ctx.rgdName ?? '',
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    spec,
    status: { state: str(obj.status?.state) ?? '', conditions },
    health: instanceHealth(obj),
    conditions,
    deploymentMode: deploymentModes.includes(mode) ? mode : 'direct',
    labels,
    createdAt,
    createdBy: annotations[instanceAnnotations.createdBy] ?? '',
    updatedAt,
    resourceVersion: meta.resourceVersion ?? '',
    uid: meta.uid ?? '',
  };
  const commit = annotations[instanceAnnotations.gitCommit];
  if (commit) instance.gitCommit = commit;
  return Object.assign(instance, gitFieldsOf(obj, instance.deploymentMode));
}

export interface NewInstance {
  apiVersion: string;
  kind: string;
  name: string;
  /** '' for a cluster-scoped kind. */
  namespace: string;
  project: string;
  rgdName: string;
  deploymentMode: api.DeploymentMode;
  createdBy: string;
  createdAt: string;
  spec: Record<string, unknown>;
  gitCommit?: string;
}

/** The custom resource Portico creates (directly or in Git) for a new instance. */
export function instanceManifest(n: NewInstance): KubeObject {
  return {
    apiVersion: n.apiVersion,
    kind: n.kind,
    metadata: {
      name: n.name,
      ...(n.namespace ? { namespace: n.namespace } : {}),
      labels: {
        [instanceLabels.project]: n.project,
        [instanceLabels.deploymentMode]: n.deploymentMode,
        [instanceLabels.rgd]: n.rgdName,
      },
      annotations: {
        [instanceAnnotations.createdBy]: n.createdBy,
        [instanceAnnotations.createdAt]: n.createdAt,
        ...(n.gitCommit ? { [instanceAnnotations.gitCommit]: n.gitCommit } : {}),
      },
    },
    spec: n.spec,
  };
}

/** The fields of instanceManifest() as a stored object has them (to re-render it, e.g. for Git). */
export function manifestFieldsOf(obj: KubeObject): Omit<NewInstance, 'spec' | 'gitCommit'> {
  const labels = obj.metadata.labels ?? {};
  const annotations = obj.metadata.annotations ?? {};
  const mode = labels[instanceLabels.deploymentMode] as api.DeploymentMode;
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    name: obj.metadata.name,
    namespace: obj.metadata.namespace ?? '',
    project: labels[instanceLabels.project] ?? '',
    rgdName: labels[instanceLabels.rgd] ?? '',
    deploymentMode: deploymentModes.includes(mode) ? mode : 'direct',
    createdBy: annotations[instanceAnnotations.createdBy] ?? '',
    createdAt: annotations[instanceAnnotations.createdAt] ?? '',
  };
}
