import { Enforcer } from 'casbin';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemActor } from '../../src/actor.js';
import type { Informer } from '../../src/cluster/informer-types.js';
import type { KubeObject } from '../../src/ports/cluster.js';
import { buildEnforcer, createAuthorizer } from '../../src/rbac/index.js';
import { projectPolicySource } from '../../src/projects/index.js';

const project = (name: string): KubeObject => ({
  apiVersion: 'portico.dev/v1alpha1',
  kind: 'Project',
  metadata: { name, namespace: 'portico' },
  spec: { roles: [{ name: 'dev', policies: ['instances/*, get, allow'], users: ['bob'] }] },
});

/** A static informer: the authorizer only lists it and subscribes. */
const informerOf = (objects: KubeObject[]): Informer =>
  ({
    list: () => objects,
    get: (name: string) => objects.find((o) => o.metadata.name === name),
    on: () => ({ close() {} }),
    start: async () => {},
    stop() {},
    health: () => ({ ok: true }),
  }) as unknown as Informer;

afterEach(() => vi.restoreAllMocks());

describe('a subject granted everything', () => {
  it('a Server Admin listing many items is answered without running Casbin per item', () => {
    const authz = createAuthorizer({ projects: informerOf([project('alpha')]), policyOf: projectPolicySource, serverAdmins: [] });
    const casbin = vi.spyOn(Enforcer.prototype, 'enforceSync');
    const admin = systemActor('admin');
    for (let i = 0; i < 200; i++) expect(authz.can(admin, 'get', `instances/alpha/ns/WebApp/app-${i}`)).toBe(true);
    expect(authz.isServerAdmin(admin)).toBe(true);
    expect(casbin).not.toHaveBeenCalled();
  });

  it('still loses to a deny line of any subject of the request', () => {
    const enforcer = buildEnforcer([
      ['role:all', '*', '*', 'allow'],
      ['role:nosecrets', 'secrets/*', '*', 'deny'],
      ['role:all-but', '*', '*', 'allow'],
      ['role:all-but', 'secrets/alpha/*', 'delete', 'deny'],
    ]);
    expect(enforcer.decide(new Set(['role:all']), 'secrets/alpha/ns/db', 'delete')).toBe(true);
    expect(enforcer.decide(new Set(['role:all', 'role:nosecrets']), 'secrets/alpha/ns/db', 'get')).toBe(false);
    expect(enforcer.decide(new Set(['role:all', 'role:nosecrets']), 'instances/alpha/ns/WebApp/x', 'get')).toBe(true);
    expect(enforcer.decide(new Set(['role:all-but']), 'secrets/alpha/ns/db', 'delete')).toBe(false);
    expect(enforcer.decide(new Set(['role:all-but']), 'secrets/alpha/ns/db', 'get')).toBe(true);
    expect(enforcer.decide(new Set(['role:other']), 'instances/alpha/ns/WebApp/x', 'get')).toBe(false);
  });

  it('members are still decided by their project lines', () => {
    const authz = createAuthorizer({ projects: informerOf([project('alpha')]), policyOf: projectPolicySource, serverAdmins: [] });
    const bob = systemActor('bob');
    expect(authz.can(bob, 'get', 'instances/alpha/ns/WebApp/x')).toBe(true);
    expect(authz.can(bob, 'delete', 'instances/alpha/ns/WebApp/x')).toBe(false);
    expect(authz.isServerAdmin(bob)).toBe(false);
  });
});
