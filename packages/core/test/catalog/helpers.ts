import { systemActor, type Actor, type Authorizer, type KubeObject } from '@portico/core';
import type { Informer, InformerEvent, InformerEventType } from '../../src/cluster/informer-types.js';
import { resources } from '../../src/ports/cluster.js';

/** An in-memory Informer: tests drive it with `emit`, which updates the cache and then tells listeners, as a real one does. */
export function fakeInformer(initial: KubeObject[] = []) {
  const objects = new Map(initial.map((o) => [o.metadata.name, o]));
  const listeners = new Set<(event: InformerEvent) => void>();
  const informer: Informer & { emit(type: InformerEventType, object: KubeObject): void; listenerCount(): number } = {
    ref: resources.rgd,
    start: async () => {},
    stop: () => {},
    list: () => [...objects.values()],
    get: (name) => objects.get(name),
    on(listener) {
      listeners.add(listener);
      return { close: () => void listeners.delete(listener) };
    },
    health: () => ({ ok: true }),
    emit(type, object) {
      const previous = objects.get(object.metadata.name);
      if (type === 'DELETED') objects.delete(object.metadata.name);
      else objects.set(object.metadata.name, object);
      for (const listener of [...listeners]) listener({ type, object, previous });
    },
    listenerCount: () => listeners.size,
  };
  return informer;
}

/** `*` in a policy object matches any rest of the path, like Casbin's keyMatch. */
const matches = (pattern: string, object: string) =>
  new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(object);

export interface FakeAuthzSetup {
  admins?: string[];
  /** actor id → projects it is a member of */
  members?: Record<string, string[]>;
  /** actor id → allowed `get` object patterns (already scoped, e.g. `rgds/alpha/*`) */
  grants?: Record<string, string[]>;
}

/** An Authorizer from plain data; `calls` counts `can` so tests can hold the catalog to its budget. */
export function fakeAuthz(setup: FakeAuthzSetup) {
  const authz: Authorizer & { calls: number } = {
    calls: 0,
    can(actor, action, object) {
      authz.calls++;
      if (action !== 'get') return false;
      return (setup.grants?.[actor.id] ?? []).some((p) => matches(p, object));
    },
    isServerAdmin: (actor) => (setup.admins ?? []).includes(actor.id),
    globalRoles: (actor) => ((setup.admins ?? []).includes(actor.id) ? ['role:serveradmin'] : []),
    memberProjects: (actor) => [...(setup.members?.[actor.id] ?? [])].sort(),
    rolesIn: () => [],
    // Item-level: every instance is decided with `can`, which is always correct.
    instanceReach: () => 'some',
    ready: async () => {},
    onChange: () => ({ close() {} }),
  };
  return authz;
}

export const actor = (id: string): Actor => systemActor(id);

export interface RgdOptions {
  kind?: string;
  group?: string;
  catalog?: boolean;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  spec?: unknown;
  types?: Record<string, unknown>;
  resources?: unknown[];
  state?: string;
  created?: string;
  resourceVersion?: string;
  conditions?: Array<{ type: string; status: string; lastTransitionTime?: string }>;
  scope?: string;
}

/** A kro ResourceGraphDefinition as the cluster would return it. */
export function rgd(name: string, o: RgdOptions = {}): KubeObject {
  const annotations = { ...(o.catalog === false ? {} : { 'portico.dev/catalog': 'true' }), ...(o.annotations ?? {}) };
  return {
    apiVersion: 'kro.run/v1alpha1',
    kind: 'ResourceGraphDefinition',
    metadata: {
      name,
      uid: `uid-${name}`,
      resourceVersion: o.resourceVersion ?? '1',
      generation: 1,
      creationTimestamp: o.created ?? '2024-01-01T00:00:00Z',
      annotations,
      ...(o.labels ? { labels: o.labels } : {}),
    },
    spec: {
      schema: {
        apiVersion: 'v1alpha1',
        kind: o.kind ?? name.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase()),
        ...(o.group ? { group: o.group } : {}),
        ...(o.scope ? { scope: o.scope } : {}),
        spec: o.spec ?? { name: 'string | required=true' },
        ...(o.types ? { types: o.types } : {}),
      },
      resources: o.resources ?? [],
    },
    status: { state: o.state ?? 'Active', conditions: o.conditions ?? [] },
  };
}
