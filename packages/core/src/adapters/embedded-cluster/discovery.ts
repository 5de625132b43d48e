import { resources, type ResourceRef } from '../../ports/cluster.js';

// kro decides the plural and scope of the CRD it generates for an RGD; the embedded cluster serves the same.
export { instanceRefOf, pluralOf } from '../../kro/instance-kind.js';

const builtinRefs: ResourceRef[] = Object.values(resources);

export function builtinRef(group: string, version: string, kind: string): ResourceRef | undefined {
  const ref = builtinRefs.find((r) => r.group === group && r.version === version && r.kind === kind);
  return ref && { ...ref };
}

/** `group/version` or core `version` split into its parts. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.lastIndexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

export const sameKind = (a: ResourceRef, b: { group: string; version: string; kind: string }) =>
  a.group === b.group && a.version === b.version && a.kind === b.kind;
