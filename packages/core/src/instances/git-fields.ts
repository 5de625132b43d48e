import type * as api from '@portico/api';
import type { KubeObject } from '../ports/cluster.js';
import { commitUrlOf, REPOSITORY_ID_LABEL, type GitPlacement } from '../repositories/index.js';

/**
 * §13: what a Git-mode instance says about where it lives and whether the cluster still matches Git. The
 * placement travels with the manifest (so an object a controller applied says it too); the commit, the
 * repository URL and the drift verdict are written on the object in the cluster.
 */
export const gitLabels = { repositoryId: REPOSITORY_ID_LABEL } as const;

export const gitAnnotations = {
  branch: 'portico.dev/git-branch',
  path: 'portico.dev/git-path',
  commit: 'portico.dev/git-commit',
  repositoryUrl: 'portico.dev/repository-url',
  /** `"true"` while the live spec differs from the spec in Git. */
  drift: 'portico.dev/gitops-drift',
  driftedAt: 'portico.dev/drifted-at',
  /** The spec in Git while drifted (JSON). */
  desiredSpec: 'portico.dev/desired-spec',
  /**
   * Hybrid: when Portico wrote the object and has not pushed yet (cleared with the commit). The object differs
   * from Git meanwhile by design: it is not drift.
   */
  pending: 'portico.dev/git-pending',
} as const;

/** The labels and annotations a manifest carries for its placement (commit and drift are the cluster's). */
export function placementMetadata(p: GitPlacement): { labels: Record<string, string>; annotations: Record<string, string> } {
  return {
    labels: { [gitLabels.repositoryId]: p.repositoryId },
    annotations: { [gitAnnotations.branch]: p.branch, [gitAnnotations.path]: p.path, [gitAnnotations.repositoryUrl]: p.repositoryUrl },
  };
}

/** The manifest with the labels and annotations of where it lives (as Git holds it). */
export function withPlacement(manifest: KubeObject, p: GitPlacement): KubeObject {
  const { labels, annotations } = placementMetadata(p);
  manifest.metadata.labels = { ...manifest.metadata.labels, ...labels };
  manifest.metadata.annotations = { ...manifest.metadata.annotations, ...annotations };
  return manifest;
}

/** Where an object says it lives; undefined for one committed before repositories (no repository label). */
export function placementOf(object: KubeObject): GitPlacement | undefined {
  const labels = object.metadata.labels ?? {};
  const annotations = object.metadata.annotations ?? {};
  const repositoryId = labels[gitLabels.repositoryId];
  const branch = annotations[gitAnnotations.branch];
  const path = annotations[gitAnnotations.path];
  if (!repositoryId || !branch || !path) return undefined;
  return { repositoryId, branch, path, repositoryUrl: annotations[gitAnnotations.repositoryUrl] ?? '' };
}

const parseSpec = (text: string | undefined): Record<string, unknown> | undefined => {
  if (!text) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/** The Instance JSON fields of §13 for a Git-mode object: `gitInfo`, `gitopsDrift` and, when drifted, `desiredSpec` and `driftedAt`. */
export function gitFieldsOf(object: KubeObject, mode: api.DeploymentMode): Pick<api.Instance, 'gitInfo' | 'gitopsDrift' | 'desiredSpec' | 'driftedAt'> {
  if (mode === 'direct') return {};
  const annotations = object.metadata.annotations ?? {};
  const fields: Pick<api.Instance, 'gitInfo' | 'gitopsDrift' | 'desiredSpec' | 'driftedAt'> = { gitopsDrift: annotations[gitAnnotations.drift] === 'true' };
  const placement = placementOf(object);
  if (placement) {
    const commitSha = annotations[gitAnnotations.commit] ?? '';
    const commitUrl = commitSha && placement.repositoryUrl ? commitUrlOf(placement.repositoryUrl, commitSha) : undefined;
    fields.gitInfo = { ...placement, commitSha, ...(commitUrl ? { commitUrl } : {}), pushStatus: 'success' };
  }
  if (fields.gitopsDrift) {
    const desired = parseSpec(annotations[gitAnnotations.desiredSpec]);
    if (desired) fields.desiredSpec = desired;
    if (annotations[gitAnnotations.driftedAt]) fields.driftedAt = annotations[gitAnnotations.driftedAt];
  }
  return fields;
}
