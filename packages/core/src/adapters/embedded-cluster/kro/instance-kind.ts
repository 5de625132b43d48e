import type { KubeObject, ResourceRef } from '../../../ports/cluster.js';

/** The plural kro gives a generated CRD: lower-cased kind, English-ish suffix rules. */
export function pluralOf(kind: string): string {
  const lower = kind.toLowerCase();
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  return `${lower}s`;
}

/** The instance kind (the CRD kro generates) an RGD declares in `spec.schema`; undefined when the schema is incomplete. */
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
