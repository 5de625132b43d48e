import { parseAllDocuments } from 'yaml';
import { parseManifestFiles, readManifestFiles as readFiles } from '../../src/adapters/embedded-cluster/manifests.js';
import { isPorticoError } from '../../src/errors.js';
import type { Cluster, KubeObject, ResourceRef } from '../../src/ports/cluster.js';

/**
 * What a person with kubectl does to a cluster, through any Cluster adapter that is not Portico: apply YAML (a
 * POST, or a merge patch when the object exists) and delete. Tests use it to change the cluster behind Portico's
 * back, as GitOps or an operator would.
 */

/** Every document of YAML text (`---` separated); empty documents are skipped. */
export function parseManifests(yamlText: string): KubeObject[] {
  return parseAllDocuments(yamlText).flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(`invalid YAML: ${doc.errors[0].message}`);
    const object = doc.toJS() as KubeObject | null;
    return object ? [object] : [];
  });
}

/** Every document of YAML files or folders (as `kubectl apply -f <dir>` reads them). */
export async function readManifestFiles(paths: string[]): Promise<KubeObject[]> {
  return parseManifestFiles(await readFiles(paths)).map((d) => d.object);
}

const splitApiVersion = (apiVersion: string) => {
  const i = apiVersion.lastIndexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
};

/** Kinds others depend on go first: namespaces and CRDs, then RGDs (which make instance kinds exist), then the rest. */
const applyRank = (o: KubeObject) =>
  (o.kind === 'Namespace' && o.apiVersion === 'v1') || o.kind === 'CustomResourceDefinition' ? 0 : o.kind === 'ResourceGraphDefinition' ? 1 : 2;

export async function refOf(cluster: Cluster, object: Pick<KubeObject, 'apiVersion' | 'kind'>): Promise<ResourceRef> {
  const { group, version } = splitApiVersion(object.apiVersion);
  const ref = await cluster.discover(group, version, object.kind);
  if (!ref) throw new Error(`error: the server doesn't have a resource type "${object.kind}" in ${object.apiVersion}`);
  return ref;
}

/**
 * `kubectl apply`, simplified: creates what is absent, merge-patches what exists (status is never applied).
 * Namespaced objects without a namespace go to `default`. Returns the objects as the API server answered.
 */
export async function kubectlApply(cluster: Cluster, input: string | KubeObject | KubeObject[]): Promise<KubeObject[]> {
  const objects = typeof input === 'string' ? parseManifests(input) : Array.isArray(input) ? input : [input];
  const ordered = objects.map((o, i) => ({ o, i })).sort((a, b) => applyRank(a.o) - applyRank(b.o) || a.i - b.i);
  const applied: KubeObject[] = [];
  for (const { o } of ordered) {
    const ref = await refOf(cluster, o);
    const { status: _status, ...desired } = o;
    const namespace = ref.namespaced ? o.metadata.namespace || 'default' : undefined;
    const body: KubeObject = { ...desired, metadata: { ...desired.metadata, ...(namespace ? { namespace } : {}) } };
    try {
      applied.push(await cluster.create(ref, body));
    } catch (err) {
      if (!isPorticoError(err) || err.code !== 'CONFLICT') throw err;
      const { name, namespace: _ns, ...meta } = body.metadata;
      applied.push(await cluster.patch(ref, name, { ...body, metadata: meta }, { namespace }));
    }
  }
  return applied;
}

/** `kubectl delete`: NOT_FOUND is an error, as kubectl reports it. */
export async function kubectlDelete(cluster: Cluster, object: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>): Promise<void> {
  const ref = await refOf(cluster, object);
  await cluster.delete(ref, object.metadata.name, ref.namespaced ? object.metadata.namespace || 'default' : undefined);
}
