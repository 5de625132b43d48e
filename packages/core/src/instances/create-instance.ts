import type { Instance } from '@portico/api';
import type { Actor } from '../actor.js';
import type { Catalog } from '../catalog/index.js';
import type { Informer } from '../cluster/informer-types.js';
import type { PorticoConfig } from '../config.js';
import { conflict, isPorticoError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Cluster, KubeObject, ResourceRef } from '../ports/cluster.js';
import type { GitDeployResult, GitPlacement } from '../repositories/index.js';
import type { Authorizer, CreateInstanceInput, InstanceKey } from '../types.js';
import type { InstanceAdmission } from './admission.js';
import { checkCreate, type CreationPlan } from './create-checks.js';
import { gitAnnotations, withPlacement } from './git-fields.js';
import type { InstanceIndex } from './index-types.js';
import { commitMessage, describeKey, timestamp, type InstanceAccess } from './instance-access.js';
import { instanceAnnotations, instanceManifest, toInstance } from './instance-resource.js';

export interface CreateInstanceDeps {
  cluster: Cluster;
  catalog: Catalog;
  authz: Authorizer;
  /** Informer over Project resources (destinations, existence). */
  projects: Informer;
  config: PorticoConfig;
  logger: Logger;
  index: InstanceIndex;
  access: InstanceAccess;
  /** Checks every create passes before anything is written, in registration order. */
  admissions: Iterable<InstanceAdmission>;
}

/**
 * Check 10 of a create: the name is free in the cluster (the index) and, for Git modes, in the repository (where
 * the instance would go, answered so the create does not place it twice).
 */
export async function checkNameFree(deps: Pick<CreateInstanceDeps, 'index' | 'access'>, { key, mode, project, git }: CreationPlan): Promise<GitPlacement | undefined> {
  const taken = () => conflict(`instance "${describeKey(key)}" already exists`, { kind: key.kind, namespace: key.namespace, name: key.name });
  if (deps.index.get(key)) throw taken();
  if (mode === 'direct') return undefined;
  const placement = await deps.access.place(project, key, git);
  if (await deps.access.manifestExists(project, placement)) throw taken();
  return placement;
}

/** The custom resource a create writes, exactly: labels, annotations, the spec with defaults (and, in Git, where it lives). */
export function creationManifest({ entry, key, project, spec, mode }: CreationPlan, actor: Actor, placement?: GitPlacement): KubeObject {
  const manifest = instanceManifest({
    apiVersion: entry.apiVersion,
    kind: entry.kind,
    name: key.name,
    namespace: key.namespace,
    project,
    rgdName: entry.name,
    deploymentMode: mode,
    createdBy: actor.id,
    createdAt: timestamp(),
    spec,
  });
  return placement ? withPlacement(manifest, placement) : manifest;
}

/**
 * Creation with the contract's checks in order, then per deployment mode (§13): `direct` creates the object;
 * `gitops` pushes the manifest and creates nothing (a controller applies it); `hybrid` creates the object, pushes
 * the manifest and records the commit on the object, and deletes the object again when the push fails.
 */
export async function createInstance(deps: CreateInstanceDeps, actor: Actor, input: CreateInstanceInput): Promise<Instance> {
  const { cluster, catalog, authz, config, logger, index, access } = deps;
  const plan = checkCreate({ catalog, authz, projects: deps.projects, config }, actor, input);
  const { entry, key, project, mode } = plan;

  // 10. The name is free: in the cluster (the index) and, for Git modes, in the repository.
  const placement = await checkNameFree(deps, plan);

  const manifest = creationManifest(plan, actor, placement);
  const context = { isClusterScoped: entry.isClusterScoped, rgdName: entry.name };
  const warnings: unknown[] = [];
  for (const admit of deps.admissions) warnings.push(...((await admit({ operation: 'create', actor, project, rgdName: entry.name, manifest }))?.warnings ?? []));
  const withWarnings = (instance: Instance): Instance => (warnings.length > 0 ? { ...instance, details: { warnings } } : instance);
  const push = () => access.commitManifest(project, placement!, manifest, commitMessage('Create', key, project, actor), 'absent');

  if (mode === 'gitops') {
    // GitOps: a controller (Argo CD, Flux) applies the commit; nothing is created here.
    const pushed = await push();
    manifest.metadata.annotations![instanceAnnotations.gitCommit] = pushed.sha;
    logger.info({ project, instance: describeKey(key), commit: pushed.sha, repository: placement!.repositoryId, mode }, 'instance pushed to its repository');
    return withWarnings(toInstance(manifest, context));
  }

  const ref = index.refOf(entry) ?? (await cluster.discover(entry.group, entry.version, entry.kind));
  if (!ref) throw conflict(`rgd "${entry.name}" is not serving its kind yet, retry shortly`, { rgd: entry.name });
  // Hybrid: the object says a push is under way until it names its commit (not drift, meanwhile); Git's copy does not.
  const object = mode === 'hybrid' ? { ...manifest, metadata: { ...manifest.metadata, annotations: { ...manifest.metadata.annotations, [gitAnnotations.pending]: timestamp() } } } : manifest;
  let created: KubeObject;
  try {
    created = await cluster.create(ref, object);
  } catch (err) {
    if (isPorticoError(err) && err.code === 'CONFLICT') throw conflict(`instance "${describeKey(key)}" already exists`, { kind: key.kind, namespace: key.namespace, name: key.name });
    throw err;
  }
  if (mode === 'hybrid') created = await pushAfterCreate(deps, { ref, created, key, project, push });
  logger.info({ project, instance: describeKey(key), mode, by: actor.id }, 'instance created');
  await index.waitFor(key, { resourceVersion: created.metadata.resourceVersion ?? '' });
  return withWarnings(toInstance(created, context));
}

/** Hybrid: the push after the object exists; a failed push deletes the object again (nothing half-done), a pushed one names its commit. */
async function pushAfterCreate(
  deps: Pick<CreateInstanceDeps, 'cluster' | 'logger'>,
  step: { ref: ResourceRef; created: KubeObject; key: InstanceKey; project: string; push: () => Promise<GitDeployResult> },
): Promise<KubeObject> {
  const { cluster, logger } = deps;
  const namespace = step.key.namespace || undefined;
  let pushed: GitDeployResult;
  try {
    pushed = await step.push();
  } catch (err) {
    await cluster.delete(step.ref, step.key.name, namespace).catch((undo: unknown) =>
      logger.error({ err: (undo as Error).message, instance: describeKey(step.key) }, 'could not undo the cluster write of a hybrid create whose push failed'),
    );
    throw err;
  }
  logger.info({ project: step.project, instance: describeKey(step.key), commit: pushed.sha }, 'instance pushed to its repository');
  return cluster.patch(step.ref, step.key.name, { metadata: { annotations: { [instanceAnnotations.gitCommit]: pushed.sha, [gitAnnotations.pending]: null } } }, { namespace });
}
