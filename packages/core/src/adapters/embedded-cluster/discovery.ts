import { resources, type ResourceRef } from '../../ports/cluster.js';

// kro decides the plural and scope of the CRD it generates for an RGD; the embedded cluster serves the same.
export { instanceRefOf, pluralOf } from './kro/instance-kind.js';

/** CustomResourceDefinitions are stored like any object; each one makes the kind it defines discoverable. */
export const customResourceDefinition: ResourceRef = { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions', namespaced: false };

const builtinRefs: ResourceRef[] = [...Object.values(resources), customResourceDefinition];

/** The kinds a CRD object declares (one per served version). */
export function refsOfCrd(crd: { spec?: any }): ResourceRef[] {
  const spec = crd.spec;
  if (!spec?.names?.kind || !spec.names.plural || !Array.isArray(spec.versions)) return [];
  return spec.versions
    .filter((v: { name?: unknown; served?: unknown }) => typeof v?.name === 'string' && v.served !== false)
    .map((v: { name: string }) => ({ group: String(spec.group), version: v.name, kind: String(spec.names.kind), plural: String(spec.names.plural), namespaced: spec.scope !== 'Cluster' }));
}

/** The kinds the embedded API serves whatever is stored (copies). */
export const builtinResources = (): ResourceRef[] => builtinRefs.map((ref) => ({ ...ref }));

export function builtinRef(group: string, version: string, kind: string): ResourceRef | undefined {
  const ref = builtinRefs.find((r) => r.group === group && r.version === version && r.kind === kind);
  return ref && { ...ref };
}

/** `group/version` or core `version` split into its parts. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.lastIndexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}
