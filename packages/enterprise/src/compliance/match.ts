import type * as api from '@portico/api/enterprise';
import type { KubeObject } from '@portico/core';

/** Gatekeeper's namespace patterns: a name, a prefix ending in `*`, or a suffix after a leading `*`. */
export const namespaceMatches = (pattern: string, namespace: string) =>
  pattern.endsWith('*') ? namespace.startsWith(pattern.slice(0, -1)) : pattern.startsWith('*') ? namespace.endsWith(pattern.slice(1)) : pattern === namespace;

/** API groups by apiVersion: an audit asks for the same few tens of thousands of times. */
const groups = new Map<string, string>();
export const groupOf = (apiVersion: string): string => {
  let group = groups.get(apiVersion);
  if (group === undefined) {
    group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.lastIndexOf('/')) : '';
    if (groups.size >= 1_000) groups.clear();
    groups.set(apiVersion, group);
  }
  return group;
};

/** The kinds a match names, as `group/kind` keys (`*` for any); empty: it matches every kind. */
export function matchedKindKeys(match: Pick<api.ConstraintMatch, 'kinds'>): string[] {
  const keys: string[] = [];
  for (const entry of match.kinds) {
    const groups = entry.apiGroups.length === 0 ? ['*'] : entry.apiGroups;
    const kinds = entry.kinds.length === 0 ? ['*'] : entry.kinds;
    for (const g of groups) for (const k of kinds) keys.push(`${g}/${k}`);
  }
  return keys;
}

/**
 * Whether a constraint's match selects an object, as Gatekeeper reads `spec.match`: kinds (by API group and
 * kind, `*` wildcards, no entry = every kind), scope, namespaces and excludedNamespaces (`prefix*` and `*suffix`
 * patterns allowed). A cluster-scoped object is never selected by a match that lists namespaces.
 */
export function matches(match: api.ConstraintMatch, obj: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>): boolean {
  const namespace = obj.metadata.namespace ?? '';
  if (match.scope === 'Namespaced' && !namespace) return false;
  if (match.scope === 'Cluster' && namespace) return false;
  if (match.namespaces.length > 0 && !(namespace && match.namespaces.some((p) => namespaceMatches(p, namespace)))) return false;
  if (namespace && match.excludedNamespaces.some((p) => namespaceMatches(p, namespace))) return false;
  if (match.kinds.length === 0) return true;
  const group = groupOf(obj.apiVersion);
  return match.kinds.some(
    (k) => (k.apiGroups.length === 0 || k.apiGroups.includes('*') || k.apiGroups.includes(group)) && (k.kinds.length === 0 || k.kinds.includes('*') || k.kinds.includes(obj.kind)),
  );
}
