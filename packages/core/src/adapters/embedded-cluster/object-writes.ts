import { randomUUID } from 'node:crypto';
import { badRequest, conflict, notFound } from '../../errors.js';
import { apiVersionOf, type KubeObject, type ObjectMeta, type ResourceRef } from '../../ports/cluster.js';
import { deepEqual, isObject, mergePatch, toJson } from './json.js';
import { keyOf, type ObjectState } from './object-state.js';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Server-owned metadata that a patch or an apply cannot change. */
const SERVER_FIELDS = ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp', 'generation', 'deletionTimestamp'] as const;

/** The writes of the object store, with the API server's checks and what it sets itself. */
export interface ObjectWrites {
  /** `dryRun`: every check of a create, nothing stored: the object as it would have been stored. */
  create(ref: ResourceRef, obj: KubeObject, opts?: { dryRun?: boolean }): Promise<KubeObject>;
  /**
   * `dryRun`: checks and computes the write but stores nothing (as `kubectl --dry-run=server`): the object the
   * patch would leave (the current one itself for a no-op), for an admission review before the real write.
   */
  patch(ref: ResourceRef, name: string, patch: Record<string, unknown>, opts?: { namespace?: string; resourceVersion?: string; dryRun?: boolean }): Promise<KubeObject>;
  /** Like `kubectl apply` of a full object: replaces everything but status and server-set metadata. */
  replace(ref: ResourceRef, obj: KubeObject): Promise<KubeObject>;
  delete(ref: ResourceRef, name: string, namespace?: string): Promise<void>;
}

export function createObjectWrites(state: ObjectState, now: () => Date): ObjectWrites {
  const { commit, mutate, scope, find } = state;
  const timestamp = () => now().toISOString().replace(/\.\d{3}Z$/, 'Z');

  const checkKind = (ref: ResourceRef, obj: KubeObject) => {
    const apiVersion = apiVersionOf(ref);
    if ((obj.apiVersion && obj.apiVersion !== apiVersion) || (obj.kind && obj.kind !== ref.kind)) {
      throw badRequest(`object is ${obj.apiVersion} ${obj.kind}, expected ${apiVersion} ${ref.kind}`);
    }
  };

  /** After a patch: keep server-owned fields, then settle generation and a pending deletion. */
  const finishUpdate = (ref: ResourceRef, current: KubeObject, next: KubeObject, dryRun = false): Promise<KubeObject> => {
    next.apiVersion = current.apiVersion;
    next.kind = current.kind;
    // A copy: the patched object shares unchanged (frozen) parts with the current one, metadata among them.
    const meta: ObjectMeta = isObject(next.metadata) ? ({ ...next.metadata } as ObjectMeta) : { name: current.metadata.name };
    for (const field of SERVER_FIELDS) {
      if (current.metadata[field] === undefined) delete meta[field];
      else (meta as unknown as Record<string, unknown>)[field] = current.metadata[field];
    }
    next.metadata = meta;
    if (Array.isArray(meta.finalizers) && meta.finalizers.length === 0) delete meta.finalizers;
    if (!deepEqual(current.spec, next.spec)) meta.generation = (current.metadata.generation ?? 1) + 1;
    if (deepEqual(current, next)) return Promise.resolve(current); // a no-op write changes nothing, as in Kubernetes
    if (dryRun) return Promise.resolve(next);
    if (meta.deletionTimestamp && !meta.finalizers?.length) return commit(ref, next, 'DELETED');
    return commit(ref, next, 'MODIFIED');
  };

  const mustFind = (ref: ResourceRef, name: string, namespace?: string) => {
    const current = find(ref, name, namespace);
    if (!current) throw notFound(ref.kind, namespace && ref.namespaced ? `${namespace}/${name}` : name);
    return current;
  };

  return {
    create(ref, input, { dryRun } = {}) {
      return mutate(() => {
        if (!isObject(input) || !isObject(input.metadata)) throw badRequest('object metadata is required');
        const obj = toJson(input);
        checkKind(ref, obj);
        const { name } = obj.metadata;
        if (typeof name !== 'string' || !DNS_SUBDOMAIN.test(name) || name.length > 253) {
          throw badRequest(`invalid name "${String(name)}": lower-case letters, digits, '-' and '.'`, { field: 'metadata.name' });
        }
        const namespace = scope(ref, obj.metadata.namespace);
        if (find(ref, name, namespace)) {
          throw conflict(`${ref.kind} "${keyOf(name, namespace)}" already exists`, { reason: 'AlreadyExists', kind: ref.kind, name });
        }
        const { resourceVersion: _rv, deletionTimestamp: _dt, namespace: _ns, ...meta } = obj.metadata;
        const created: KubeObject = {
          ...obj,
          apiVersion: apiVersionOf(ref),
          kind: ref.kind,
          metadata: {
            ...meta,
            name,
            ...(namespace ? { namespace } : {}),
            uid: randomUUID(),
            generation: 1,
            creationTimestamp: timestamp(),
          },
        };
        if (!created.metadata.finalizers?.length) delete created.metadata.finalizers;
        return dryRun ? created : commit(ref, created, 'ADDED');
      });
    },

    patch(ref, name, patch, { namespace, resourceVersion, dryRun } = {}) {
      return mutate(() => {
        if (!isObject(patch)) throw badRequest('a merge patch must be a JSON object');
        const current = mustFind(ref, name, namespace);
        if (resourceVersion && resourceVersion !== current.metadata.resourceVersion) {
          throw conflict(`${ref.kind} "${name}" was modified: resourceVersion ${resourceVersion} is stale`, {
            reason: 'Conflict',
            kind: ref.kind,
            name,
            resourceVersion: current.metadata.resourceVersion,
          });
        }
        const next = mergePatch(current, toJson(patch)) as KubeObject;
        return finishUpdate(ref, current, next, dryRun);
      });
    },

    replace(ref, input) {
      return mutate(() => {
        const obj = toJson(input);
        const current = mustFind(ref, obj.metadata.name, obj.metadata.namespace);
        const next: KubeObject = { ...obj, metadata: { ...obj.metadata } };
        if (current.status !== undefined) next.status = current.status;
        else delete next.status;
        return finishUpdate(ref, current, next);
      });
    },

    delete(ref, name, namespace) {
      return mutate(() => {
        const current = mustFind(ref, name, namespace);
        if (current.metadata.deletionTimestamp) return undefined; // already terminating
        if (current.metadata.finalizers?.length) {
          const next = { ...current, metadata: { ...current.metadata, deletionTimestamp: timestamp() } };
          return commit(ref, next, 'MODIFIED').then(() => undefined);
        }
        return commit(ref, { ...current, metadata: { ...current.metadata } }, 'DELETED').then(() => undefined);
      });
    },
  };
}
