import type { Instance, PatchInstanceRequest } from '@portico/api';
import type { Actor } from '../actor.js';
import { validateValues, type Catalog } from '../catalog/index.js';
import { retryOnConflict } from '../cluster/retry.js';
import { deepEqual } from '../json-equal.js';
import { conflict, notFound, validationFailed } from '../errors.js';
import type { Cluster, KubeObject, ResourceRef } from '../ports/cluster.js';
import type { GitDeployResult } from '../repositories/index.js';
import type { InstanceKey } from '../types.js';
import type { InstanceAdmission } from './admission.js';
import type { InstanceIndex } from './index-types.js';
import { commitMessage, describeKey, timestamp, type InstanceAccess } from './instance-access.js';
import { gitAnnotations, withPlacement } from './git-fields.js';
import { instanceAnnotations, instanceManifest, manifestFieldsOf, toInstance } from './instance-resource.js';
import type { HistoryWrites } from './history-writes.js';
import { applyMergePatch, mergePatchBetween } from './merge-patch.js';

/** Attempts of a PATCH without a client resourceVersion racing other writers (30 concurrent PATCHes all land). */
const patchAttempts = 50;

interface PatchInstanceDeps {
  cluster: Cluster;
  catalog: Catalog;
  index: InstanceIndex;
  access: InstanceAccess;
  /** The checks every create passes run on every update too, on the object as it would be written. */
  admissions?: Iterable<InstanceAdmission>;
  /** Records the commits of the Git modes in the instance's history. */
  history?: HistoryWrites;
}

/** A merge patch of the spec, validated against the RGD's schema, written (or committed) with a history entry. */
export async function patchInstance(deps: PatchInstanceDeps, actor: Actor, key: InstanceKey, input: PatchInstanceRequest): Promise<Instance> {
  const { cluster, catalog, index, access } = deps;
  const item = access.getVisible(actor, key);
  access.requireAllowed(actor, 'update', item);
  const entry = catalog.entry(item.instance.rgdName) ?? catalog.entryForKind(key.kind);
  if (!entry) throw conflict(`rgd "${item.instance.rgdName}" is no longer in the catalog`, { rgd: item.instance.rgdName });
  const schema = catalog.schemaOf(entry);
  const namespace = key.namespace || undefined;

  const attempt = async (): Promise<Instance> => {
    // The current object, not the index's copy: the merge base must be the version we send a precondition for.
    const current = await cluster.get(item.ref, key.name, namespace);
    if (!current) throw notFound('instance', describeKey(key));
    const version = current.metadata.resourceVersion ?? '';
    if (input.resourceVersion !== undefined && input.resourceVersion !== version) {
      throw conflict(`instance "${describeKey(key)}" was changed since resourceVersion ${input.resourceVersion}`, { resourceVersion: version });
    }
    const merged = applyMergePatch(current.spec ?? {}, input.spec);
    const result = validateValues(schema, merged);
    if (!result.ok) throw validationFailed(result.fields, `the values do not match the schema of rgd "${entry.name}"`);
    const updatedAt = timestamp();
    const specPatch = mergePatchBetween(current.spec ?? {}, result.value) as Record<string, unknown>;
    const annotations: Record<string, string> = {
      [instanceAnnotations.updatedBy]: actor.id,
      [instanceAnnotations.updatedAt]: updatedAt,
    };
    // A spec change moves the generation by one; naming it in the same guarded write lets the history put that
    // change, and no later one made around Portico, on this user.
    if (Object.keys(specPatch).length > 0) annotations[instanceAnnotations.updatedGeneration] = String((current.metadata.generation ?? 1) + 1);
    const mode = item.instance.deploymentMode;
    const placement = mode === 'direct' ? undefined : access.placementOf(current, item.project, key);
    // What the write would leave: the committed manifest in the Git modes, else the object with the new spec.
    const manifest: KubeObject =
      placement !== undefined
        ? withPlacement(instanceManifest({ ...manifestFieldsOf(current), spec: result.value }), placement)
        : { ...current, metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, ...annotations } }, spec: result.value };
    // The admissions of a create (policy checks) apply to an update as well, before Git or the cluster sees it.
    const warnings: unknown[] = [];
    for (const admit of deps.admissions ?? []) {
      warnings.push(...((await admit({ operation: 'update', actor, project: item.project, rgdName: entry.name, manifest, previous: current }))?.warnings ?? []));
    }
    const withWarnings = (instance: Instance): Instance => (warnings.length > 0 ? { ...instance, details: { warnings } } : instance);
    const push = () => access.commitManifest(item.project, placement!, manifest, commitMessage('Update', key, item.project, actor));
    if (mode === 'gitops') {
      // GitOps: Git is the source of truth; the controller applies the commit (a direct patch would be reverted).
      const pushed = await push();
      await deps.history?.committed(key, item.instance, actor.id, pushed.sha, 'Updated');
      const gitInfo = item.instance.gitInfo && { ...item.instance.gitInfo, commitSha: pushed.sha, ...(pushed.commitUrl ? { commitUrl: pushed.commitUrl } : {}) };
      return withWarnings({ ...item.instance, spec: result.value, gitCommit: pushed.sha, ...(gitInfo ? { gitInfo } : {}) });
    }
    // Hybrid: the object says a push is under way until it names the new commit (not drift, meanwhile).
    if (mode === 'hybrid') annotations[gitAnnotations.pending] = timestamp();
    let patched = await cluster.patch(
      item.ref,
      key.name,
      { metadata: { annotations }, spec: specPatch },
      { namespace, resourceVersion: version },
    );
    if (mode === 'hybrid') {
      patched = await pushAfterPatch({ cluster, ref: item.ref, key, before: current, patched, push });
      await deps.history?.committed(key, item.instance, actor.id, patched.metadata.annotations?.[instanceAnnotations.gitCommit] ?? '', 'Updated');
    }
    await index.waitFor(key, { resourceVersion: patched.metadata.resourceVersion ?? '' });
    return withWarnings(toInstance(patched, { isClusterScoped: !item.ref.namespaced, rgdName: entry.name }));
  };
  // A merge patch that names no version applies to whatever is current: a concurrent writer (another
  // client, kro's status) only means re-reading and merging again. A named version is the client's own
  // precondition: its conflict is the client's to resolve (409).
  return input.resourceVersion === undefined ? retryOnConflict(attempt, { attempts: patchAttempts }) : attempt();
}

/**
 * Hybrid: the push after the cluster took the change. A failed push puts the spec back as it was, as long as the
 * spec is still the one this patch wrote (a later writer's change is not overwritten; status writes of the
 * controller meanwhile are only retried around), and fails the request; a pushed one names its commit.
 */
async function pushAfterPatch(step: { cluster: Cluster; ref: ResourceRef; key: InstanceKey; before: KubeObject; patched: KubeObject; push: () => Promise<GitDeployResult> }): Promise<KubeObject> {
  const namespace = step.key.namespace || undefined;
  let pushed: GitDeployResult;
  try {
    pushed = await step.push();
  } catch (err) {
    await undoPatch(step).catch(() => undefined);
    throw err;
  }
  return step.cluster.patch(step.ref, step.key.name, { metadata: { annotations: { [instanceAnnotations.gitCommit]: pushed.sha, [gitAnnotations.pending]: null } } }, { namespace });
}

async function undoPatch(step: { cluster: Cluster; ref: ResourceRef; key: InstanceKey; before: KubeObject; patched: KubeObject }): Promise<void> {
  const namespace = step.key.namespace || undefined;
  const annotations = Object.fromEntries(
    [instanceAnnotations.updatedBy, instanceAnnotations.updatedAt, instanceAnnotations.updatedGeneration, gitAnnotations.pending].map((k) => [k, step.before.metadata.annotations?.[k] ?? null]),
  );
  await retryOnConflict(async () => {
    const current = await step.cluster.get(step.ref, step.key.name, namespace);
    if (!current || !deepEqual(current.spec ?? {}, step.patched.spec ?? {})) return;
    const back = mergePatchBetween(current.spec ?? {}, step.before.spec ?? {}) as Record<string, unknown>;
    await step.cluster.patch(step.ref, step.key.name, { metadata: { annotations }, spec: back }, { namespace, resourceVersion: current.metadata.resourceVersion });
  }, { attempts: 20 });
}
