import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../src/logger.js';
import { resources } from '../../src/ports/cluster.js';
import { defaultRoles, projectPolicySource, waitForInformer } from '../../src/projects/index.js';
import { namespace, role, startWorld, user, type World } from './world.js';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const start = async (opts: Parameters<typeof startWorld>[0] = {}) => (world = await startWorld(opts));

describe('deny wins', () => {
  it('a deny line overrides an allow line of the same role', async () => {
    const { authz, put } = await start();
    await put('alpha', [role('developer', ['instances/*, *, allow', 'instances/prod/*, delete, deny'], { users: ['alice'] })]);
    const alice = user('alice');
    expect(authz.can(alice, 'delete', 'instances/alpha/dev/WebApp/shop')).toBe(true);
    expect(authz.can(alice, 'delete', 'instances/alpha/prod/WebApp/shop')).toBe(false);
    expect(authz.can(alice, 'update', 'instances/alpha/prod/WebApp/shop')).toBe(true);
  });

  it('a deny reached through a group binding overrides an allow reached through a user binding', async () => {
    const { authz, put } = await start();
    await put('alpha', [
      role('developer', ['instances/*, *, allow', 'secrets/*, *, allow'], { users: ['alice'] }),
      role('contractor', ['secrets/*, *, deny'], { groups: ['contractors'] }),
    ]);
    expect(authz.can(user('alice'), 'get', 'secrets/alpha/dev/db')).toBe(true);
    expect(authz.can(user('alice', ['contractors']), 'get', 'secrets/alpha/dev/db')).toBe(false);
    expect(authz.can(user('alice', ['contractors']), 'get', 'instances/alpha/dev/WebApp/shop')).toBe(true);
    expect(authz.rolesIn(user('alice', ['contractors']), 'alpha')).toEqual(['developer', 'contractor']);
  });

  it('a deny through one group overrides an allow through another group', async () => {
    const { authz, put } = await start();
    await put('alpha', [
      role('ops', ['instances/*, *, allow'], { groups: ['ops'] }),
      role('frozen', ['instances/*, update, deny'], { groups: ['freeze'] }),
    ]);
    expect(authz.can(user('bob', ['ops']), 'update', 'instances/alpha/dev/App/a')).toBe(true);
    expect(authz.can(user('bob', ['freeze', 'ops']), 'update', 'instances/alpha/dev/App/a')).toBe(false);
  });
});

describe('bindings', () => {
  it('removing a group binding revokes access unless a user binding or another bound group still grants it', async () => {
    const { authz, put } = await start();
    const carol = user('carol', ['team-a', 'team-b']);
    const object = 'instances/alpha/dev/WebApp/shop';
    await put('alpha', [role('viewer', ['instances/*, get, allow'], { groups: ['team-a', 'team-b'], users: ['carol'] })]);
    expect(authz.can(carol, 'get', object)).toBe(true);

    await put('alpha', [role('viewer', ['instances/*, get, allow'], { groups: ['team-b'], users: ['carol'] })]);
    expect(authz.can(carol, 'get', object)).toBe(true); // user binding and team-b remain

    await put('alpha', [role('viewer', ['instances/*, get, allow'], { groups: ['team-b'] })]);
    expect(authz.can(carol, 'get', object)).toBe(true); // team-b remains

    await put('alpha', [role('viewer', ['instances/*, get, allow'], { groups: [] })]);
    expect(authz.can(carol, 'get', object)).toBe(false);
    expect(authz.memberProjects(carol)).toEqual([]);
  });

  it('members/* lets a role bind and unbind members but never change what roles permit', async () => {
    const { authz, put } = await start();
    await put('alpha', defaultRoles().map((r) => (r.name === 'platform-admin' ? { ...r, users: ['pat'] } : r)));
    const pat = user('pat');
    expect(authz.can(pat, 'create', 'projects/alpha/members')).toBe(true);
    expect(authz.can(pat, 'delete', 'projects/alpha/members')).toBe(true);
    expect(authz.can(pat, 'update', 'projects/alpha/roles')).toBe(false);
    expect(authz.can(pat, 'update', 'projects/alpha')).toBe(false);
    expect(authz.can(pat, 'delete', 'projects/alpha')).toBe(false);
    expect(authz.can(pat, 'create', 'projects/*')).toBe(false);
  });

  it('a viewer cannot bind', async () => {
    const { authz, put } = await start();
    await put('alpha', defaultRoles().map((r) => (r.name === 'viewer' ? { ...r, users: ['vera'] } : r)));
    const vera = user('vera');
    expect(authz.can(vera, 'get', 'projects/alpha')).toBe(true);
    expect(authz.can(vera, 'get', 'instances/alpha/dev/WebApp/x')).toBe(true);
    expect(authz.can(vera, 'create', 'instances/alpha/dev/WebApp/x')).toBe(false);
    expect(authz.can(vera, 'create', 'projects/alpha/members')).toBe(false);
    expect(authz.can(vera, 'delete', 'projects/alpha/members')).toBe(false);
  });

  it('no project policy, however broad, yields the role-modify permission, projects/* or deleting the project', async () => {
    const { authz, put } = await start();
    const everything = ['instances/*, *, allow', 'secrets/*, *, allow', 'rgds/*, *, allow', 'members/*, *, allow', 'members, *, allow'];
    const invalid = ['*, *, allow', 'roles/*, *, allow', 'projects/*, *, allow', 'projects/alpha/roles, update, allow'];
    await put('alpha', [role('god', [...everything, ...invalid], { users: ['mallory'] })]);
    const mallory = user('mallory');
    expect(authz.can(mallory, 'update', 'projects/alpha/roles')).toBe(false);
    expect(authz.can(mallory, '*', 'projects/alpha/roles')).toBe(false);
    expect(authz.can(mallory, 'create', 'projects/*')).toBe(false);
    expect(authz.can(mallory, 'list', 'projects/*')).toBe(false);
    // `projects/*, *` is the project itself, get and update only: never its deletion.
    expect(authz.can(mallory, 'update', 'projects/alpha')).toBe(true);
    expect(authz.can(mallory, 'delete', 'projects/alpha')).toBe(false);
    expect(authz.can(mallory, 'update', 'projects/beta')).toBe(false);
    expect(authz.can(mallory, 'get', 'instances/beta/dev/App/x')).toBe(false);
    expect(authz.can(mallory, 'delete', 'instances/alpha/dev/App/x')).toBe(true);
  });

  it('an object naming one project is never decided by another project’s policies', async () => {
    const { authz, put } = await start();
    await put('alpha', [role('developer', ['instances/*, *, allow'], { users: ['alice'] })]);
    await put('alpha-2', [role('viewer', [], { users: ['bob'] })]);
    const alice = user('alice');
    expect(authz.can(alice, 'get', 'instances/alpha-2/dev/App/x')).toBe(false);
    expect(authz.can(alice, 'get', 'instances/alpha/../alpha-2/App/x')).toBe(false);
    expect(authz.can(alice, 'get', 'instances/unknown/dev/App/x')).toBe(false);
    expect(authz.can(alice, 'get', 'projects/unknown')).toBe(false);
  });

  it('rolesIn follows the project role order and memberProjects is sorted', async () => {
    const { authz, put } = await start();
    await put('zeta', [role('b', [], { groups: ['g'] }), role('a', [], { users: ['dan'] })]);
    await put('alpha', [role('viewer', [], { users: ['dan'] })]);
    await put('mid', [role('viewer', [], { users: ['someone-else'] })]);
    const dan = user('dan', ['g']);
    expect(authz.memberProjects(dan)).toEqual(['alpha', 'zeta']);
    expect(authz.rolesIn(dan, 'zeta')).toEqual(['b', 'a']);
    expect(authz.rolesIn(dan, 'mid')).toEqual([]);
    expect(authz.rolesIn(dan, 'nope')).toEqual([]);
  });
});

describe('Server Admins', () => {
  it('come from SERVER_ADMINS users and groups, plus user:admin always, and may do anything', async () => {
    const { authz, put } = await start({ serverAdmins: ['user:root', 'group:platform', 'legacy'] });
    await put('alpha', [role('viewer', ['instances/*, get, allow'], { users: ['vera'] })]);
    for (const admin of [user('admin'), user('root'), user('someone', ['platform']), user('legacy')]) {
      expect(authz.isServerAdmin(admin)).toBe(true);
      expect(authz.globalRoles(admin)).toEqual(['role:serveradmin']);
      expect(authz.can(admin, 'create', 'projects/*')).toBe(true);
      expect(authz.can(admin, 'update', 'projects/alpha/roles')).toBe(true);
      expect(authz.can(admin, 'delete', 'instances/alpha/dev/App/x')).toBe(true);
      expect(authz.can(admin, 'delete', 'instances/not-a-project/dev/App/x')).toBe(true);
    }
    for (const other of [user('vera'), user('platform'), user('x', ['root']), user('x', ['admin'])]) {
      expect(authz.isServerAdmin(other)).toBe(false);
      expect(authz.globalRoles(other)).toEqual([]);
      expect(authz.can(other, 'create', 'projects/*')).toBe(false);
    }
  });
});

describe('reload', () => {
  it('a change written to the cluster (as kubectl would) is in force for the next can() once the informer has it', async () => {
    const { authz, put, cluster, informer } = await start();
    await put('alpha', [role('viewer', ['instances/*, get, allow'], { users: ['alice'] })]);
    const alice = user('alice');
    expect(authz.can(alice, 'delete', 'instances/alpha/dev/App/x')).toBe(false);

    const changes = vi.fn();
    authz.onChange(changes);
    const patched = await cluster.patch(
      resources.project,
      'alpha',
      { spec: { roles: [role('viewer', ['instances/*, *, allow'], { users: ['alice'] })] } },
      { namespace },
    );
    expect(await waitForInformer(informer, 'alpha', namespace, { resourceVersion: patched.metadata.resourceVersion! })).toBe(true);
    expect(authz.can(alice, 'delete', 'instances/alpha/dev/App/x')).toBe(true);
    expect(changes).toHaveBeenCalledTimes(1);
  });

  it('a binding keeps the decisions already made for the roles; the next policy change is decided anew', async () => {
    const { authz, put } = await start();
    const object = 'instances/alpha/dev/App/x';
    await put('alpha', [role('viewer', ['instances/*, get, allow'], { users: ['alice'] })]);
    expect(authz.can(user('alice'), 'get', object)).toBe(true);
    expect(authz.can(user('bob'), 'get', object)).toBe(false);

    await put('alpha', [role('viewer', ['instances/*, get, allow'], { users: ['alice', 'bob'] })]);
    expect(authz.can(user('bob'), 'get', object)).toBe(true);
    expect(authz.can(user('bob'), 'delete', object)).toBe(false);

    await put('alpha', [role('viewer', ['instances/*, get, allow', 'instances/dev/*, get, deny'], { users: ['alice', 'bob'] })]);
    expect(authz.can(user('alice'), 'get', object)).toBe(false);
    expect(authz.can(user('bob'), 'get', object)).toBe(false);
    expect(authz.can(user('bob'), 'get', 'instances/alpha/prod/App/x')).toBe(true);
  });

  it('a listener registered after the authorizer already sees the new policy during the informer event', async () => {
    const { authz, put, informer } = await start();
    await put('alpha', [role('viewer', [], { users: ['alice'] })]);
    const seen: boolean[] = [];
    informer.on((e) => {
      if (e.object.metadata.name === 'alpha') seen.push(authz.can(user('alice'), 'get', 'instances/alpha/x/App/y'));
    });
    await put('alpha', [role('viewer', ['instances/*, get, allow'], { users: ['alice'] })]);
    await put('alpha', [role('viewer', [], { users: ['alice'] })]);
    expect(seen).toEqual([true, false]);
  });

  it('a deleted project grants nothing and disappears from the member index', async () => {
    const { authz, put, remove } = await start();
    await put('alpha', [role('viewer', [], { users: ['alice'] })]);
    expect(authz.memberProjects(user('alice'))).toEqual(['alpha']);
    await remove('alpha');
    expect(authz.memberProjects(user('alice'))).toEqual([]);
    expect(authz.can(user('alice'), 'get', 'projects/alpha')).toBe(false);
  });

  it('one actor, kept across bindings (a token\'s), sees its projects change as it is bound and unbound', async () => {
    const { authz, put, remove } = await start();
    const alice = user('alice');
    expect(authz.memberProjects(alice)).toEqual([]);
    await put('beta', [role('viewer', [], { users: ['alice'] })]);
    expect(authz.memberProjects(alice)).toEqual(['beta']);
    await put('alpha', [role('viewer', [], { users: ['alice'] })]);
    expect(authz.memberProjects(alice)).toEqual(['alpha', 'beta']);
    await put('beta', [role('viewer', [], { users: ['bob'] })]);
    expect(authz.memberProjects(alice)).toEqual(['alpha']);
    await remove('alpha');
    expect(authz.memberProjects(alice)).toEqual([]);
  });

  it('a project with invalid policies keeps its valid lines and logs a warning', async () => {
    const warn = vi.fn();
    const logger = { warn, error: vi.fn(), info: vi.fn(), debug: vi.fn() } as unknown as Logger;
    const { authz, put } = await start({ logger });
    await put('alpha', [role('developer', ['instances/*, get, allow', 'roles/*, update, allow', 'secrets/*, nope, allow'], { users: ['alice'] })]);
    expect(authz.can(user('alice'), 'get', 'instances/alpha/dev/App/x')).toBe(true);
    expect(authz.can(user('alice'), 'nope', 'secrets/alpha/dev/x')).toBe(false);
    expect(warn).toHaveBeenCalledTimes(1);
    const [fields] = warn.mock.calls[0];
    expect(fields.project).toBe('alpha');
    expect(fields.errors).toEqual([
      expect.stringContaining('role "developer": policy "roles/*, update, allow"'),
      expect.stringContaining('role "developer": policy "secrets/*, nope, allow"'),
    ]);
  });

  it('ready() resolves with the projects that existed before the authorizer started', async () => {
    const first = await start();
    await first.put('alpha', [role('viewer', [], { users: ['alice'] })]);
    const { createAuthorizer } = await import('../../src/rbac/index.js');
    const late = createAuthorizer({ projects: first.informer, policyOf: projectPolicySource, serverAdmins: [] });
    await late.ready();
    expect(late.memberProjects(user('alice'))).toEqual(['alpha']);
  });
});

describe('role destinations', () => {
  it('a role confined to dev grants nothing in staging, nor project-wide', async () => {
    const { authz, put } = await start();
    await put('alpha', [{ ...role('developer', ['instances/*, *, allow'], { users: ['alice'] }), destinations: ['dev'] }]);
    const alice = user('alice');
    expect(authz.can(alice, 'create', 'instances/alpha/dev/WebApp/shop')).toBe(true);
    expect(authz.can(alice, 'create', 'instances/alpha/staging/WebApp/shop')).toBe(false);
    expect(authz.can(alice, 'get', 'instances/alpha/staging/WebApp/shop')).toBe(false);
    expect(authz.can(alice, 'list', 'instances/alpha/*')).toBe(false);
    expect(authz.can(alice, 'get', 'projects/alpha')).toBe(true);
  });
});
