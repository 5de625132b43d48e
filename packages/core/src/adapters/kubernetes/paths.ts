import { badRequest } from '../../errors.js';
import type { ResourceRef } from '../../ports/cluster.js';

/**
 * A name or namespace that goes into a URL path. Kubernetes forbids `.`, `..` and `/` in names; we refuse
 * them before they reach a URL, where `..` would be resolved into a different API path.
 */
function segment(value: string, what: string): string {
  if (!value || value === '.' || value === '..' || /[/%?#\\]/.test(value) || value.length > 253) {
    throw badRequest(`invalid ${what} "${value}"`, { field: what === 'name' ? 'metadata.name' : 'metadata.namespace' });
  }
  return encodeURIComponent(value);
}

/** `/api/v1` for the core group, `/apis/<group>/<version>` otherwise. */
export const groupVersionPath = (group: string, version: string) =>
  group ? `/apis/${encodeURIComponent(group)}/${encodeURIComponent(version)}` : `/api/${encodeURIComponent(version)}`;

/** A namespaced kind needs a namespace for single objects; cluster-scoped kinds ignore one, as the API does. */
export function scopeOf(ref: ResourceRef, namespace: string | undefined): string | undefined {
  if (!ref.namespaced) return undefined;
  if (!namespace) throw badRequest(`${ref.kind} is namespaced: a namespace is required`, { kind: ref.kind });
  return namespace;
}

/** The collection: all namespaces when a namespaced kind is listed without one. */
export function collectionPath(ref: ResourceRef, namespace?: string): string {
  const ns = ref.namespaced && namespace ? `/namespaces/${segment(namespace, 'namespace')}` : '';
  return `${groupVersionPath(ref.group, ref.version)}${ns}/${encodeURIComponent(ref.plural)}`;
}

export function objectPath(ref: ResourceRef, name: string, namespace?: string): string {
  return `${collectionPath(ref, scopeOf(ref, namespace))}/${segment(name, 'name')}`;
}

/** How errors name an object: `namespace/name` or `name`. */
export const identifierOf = (ref: ResourceRef, name: string, namespace?: string) =>
  ref.namespaced && namespace ? `${namespace}/${name}` : name;
