import { resources, type KubeObject, type ResourceRef } from '../../ports/cluster.js';

const builtinRefs: ResourceRef[] = Object.values(resources);

/** The plural kro gives a generated CRD: lower-cased kind, English-ish suffix rules. */
export function pluralOf(kind: string): string {
  const lower = kind.toLowerCase();
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  return `${lower}s`;
}

export function builtinRef(group: string, version: string, kind: string): ResourceRef | undefined {
  const ref = builtinRefs.find((r) => r.group === group && r.version === version && r.kind === kind);
  return ref && { ...ref };
}

/** `group/version` or core `version` split into its parts. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.lastIndexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** The instance kind an RGD declares (`spec.schema`), or undefined when the schema is incomplete. */
export function instanceRefOf(rgd: KubeObject): ResourceRef | undefined {
  const schema = rgd.spec?.schema;
  if (!schema || typeof schema.kind !== 'string' || typeof schema.apiVersion !== 'string' || !schema.kind) return undefined;
  const group = typeof schema.group === 'string' && schema.group ? schema.group : 'kro.run';
  return {
    group,
    version: schema.apiVersion,
    kind: schema.kind,
    plural: pluralOf(schema.kind),
    namespaced: schema.scope !== 'Cluster',
  };
}

export const sameKind = (a: ResourceRef, b: { group: string; version: string; kind: string }) =>
  a.group === b.group && a.version === b.version && a.kind === b.kind;
