import type { Instance } from '@portico/api';
import type { Actor } from '../actor.js';
import type { Catalog } from '../catalog/index.js';
import type { Informer } from '../cluster/informer-types.js';
import type { PorticoConfig } from '../config.js';
import { conflict, isPorticoError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Cluster, KubeObject } from '../ports/cluster.js';
import type { Authorizer, CreateInstanceInput } from '../types.js';
import type { InstanceAdmission } from './admission.js';
import { checkCreate, type CreationPlan } from './create-checks.js';
import { manifestPath } from './gitops.js';
import type { InstanceIndex } from './index-types.js';
import { describeKey, shortName, timestamp, type InstanceAccess } from './instance-access.js';
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

/** Check 10 of a create: the name is free in the cluster (the index) and, for Git modes, in the repository. */
export async function checkNameFree(deps: Pick<CreateInstanceDeps, 'index' | 'access'>, { key, mode, project }: CreationPlan): Promise<void> {
  if (deps.index.get(key) || (mode !== 'direct' && (await deps.access.gitWriter().exists(manifestPath(project, key))))) {
    throw conflict(`instance "${describeKey(key)}" already exists`, { kind: key.kind, namespace: key.namespace, name: key.name });
  }
}

/** The custom resource a create writes, exactly: labels, annotations, the spec with defaults. */
export function creationManifest({ entry, key, project, spec, mode }: CreationPlan, actor: Actor): KubeObject {
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
  return manifest;
}

/** Creation with the contract's checks in order, then per deployment mode: a commit, an object, or both. */
export async function createInstance(deps: CreateInstanceDeps, actor: Actor, input: CreateInstanceInput): Promise<Instance> {
  const { cluster, catalog, authz, config, logger, index, access } = deps;
  const plan = checkCreate({ catalog, authz, projects: deps.projects, config }, actor, input);
  const { entry, key, project, mode } = plan;

  // 10. The name is free: in the cluster (the index) and, for Git modes, in the repository.
  await checkNameFree(deps, plan);

  const manifest = creationManifest(plan, actor);
  const context = { isClusterScoped: entry.isClusterScoped, rgdName: entry.name };
  const warnings: unknown[] = [];
  for (const admit of deps.admissions) warnings.push(...((await admit({ operation: 'create', actor, project, rgdName: entry.name, manifest }))?.warnings ?? []));
  const withWarnings = (instance: Instance): Instance => (warnings.length > 0 ? { ...instance, details: { warnings } } : instance);

  if (mode !== 'direct') {
    const sha = await access.commitManifest(plan, manifest, `Create ${entry.kind} ${shortName(key)} in project ${project}\n\nRequested by ${actor.subject} through Portico.`);
    manifest.metadata.annotations![instanceAnnotations.gitCommit] = sha;
    logger.info({ project, instance: describeKey(key), commit: sha, mode }, 'instance committed to the GitOps repository');
    // GitOps: a controller (Argo CD, Flux) applies the commit; nothing is created here.
    if (mode === 'gitops') return withWarnings(toInstance(manifest, context));
  }

  const ref = index.refOf(entry) ?? (await cluster.discover(entry.group, entry.version, entry.kind));
  if (!ref) throw conflict(`rgd "${entry.name}" is not serving its kind yet, retry shortly`, { rgd: entry.name });
  let created: KubeObject;
  try {
    created = await cluster.create(ref, manifest);
  } catch (err) {
    if (isPorticoError(err) && err.code === 'CONFLICT') throw conflict(`instance "${describeKey(key)}" already exists`, { kind: key.kind, namespace: key.namespace, name: key.name });
    throw err;
  }
  logger.info({ project, instance: describeKey(key), mode, by: actor.id }, 'instance created');
  await index.waitFor(key, { resourceVersion: created.metadata.resourceVersion ?? '' });
  return withWarnings(toInstance(created, context));
}
