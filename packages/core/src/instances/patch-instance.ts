import type { Instance, PatchInstanceRequest } from '@portico/api';
import type { Actor } from '../actor.js';
import { validateValues, type Catalog } from '../catalog/index.js';
import { retryOnConflict } from '../cluster/retry.js';
import { conflict, notFound, validationFailed } from '../errors.js';
import type { Cluster, KubeObject } from '../ports/cluster.js';
import type { InstanceKey } from '../types.js';
import type { InstanceAdmission } from './admission.js';
import type { InstanceIndex } from './index-types.js';
import { describeKey, shortName, timestamp, type InstanceAccess } from './instance-access.js';
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
    // What the write would leave: the committed manifest in the Git modes, else the object with the new spec.
    const manifest: KubeObject =
      mode !== 'direct'
        ? instanceManifest({ ...manifestFieldsOf(current), spec: result.value })
        : { ...current, metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, ...annotations } }, spec: result.value };
    // The admissions of a create (policy checks) apply to an update as well, before Git or the cluster sees it.
    const warnings: unknown[] = [];
    for (const admit of deps.admissions ?? []) {
      warnings.push(...((await admit({ operation: 'update', actor, project: item.project, rgdName: entry.name, manifest, previous: current }))?.warnings ?? []));
    }
    const withWarnings = (instance: Instance): Instance => (warnings.length > 0 ? { ...instance, details: { warnings } } : instance);
    if (mode !== 'direct') {
      const sha = await access.commitManifest(
        { project: item.project, key },
        manifest,
        `Update ${key.kind} ${shortName(key)} in project ${item.project}\n\nRequested by ${actor.subject} through Portico.`,
      );
      await deps.history?.committed(key, item.instance, actor.id, sha, 'Updated');
      // GitOps: Git is the source of truth; the controller applies the commit (a direct patch would be reverted).
      if (mode === 'gitops') return withWarnings({ ...item.instance, spec: result.value, gitCommit: sha });
      annotations[instanceAnnotations.gitCommit] = sha;
    }
    const patched = await cluster.patch(
      item.ref,
      key.name,
      { metadata: { annotations }, spec: specPatch },
      { namespace, resourceVersion: version },
    );
    await index.waitFor(key, { resourceVersion: patched.metadata.resourceVersion ?? '' });
    return withWarnings(toInstance(patched, { isClusterScoped: !item.ref.namespaced, rgdName: entry.name }));
  };
  // A merge patch that names no version applies to whatever is current: a concurrent writer (another
  // client, kro's status) only means re-reading and merging again. A named version is the client's own
  // precondition: its conflict is the client's to resolve (409).
  return input.resourceVersion === undefined ? retryOnConflict(attempt, { attempts: patchAttempts }) : attempt();
}
