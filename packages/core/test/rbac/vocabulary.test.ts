import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ossRbacResources, rbacActions, rbacDocsTable, registerRbacResources, type RbacResourceRow } from '@portico/api';
import { resourceName } from '../../../cli/src/commands/can-i.js';
import { compilePolicy, createAccess } from '../../src/rbac/index.js';
import type { AccessService } from '../../src/types.js';
import { namespace, role, startWorld, user, type World } from './world.js';

/** A resource Portico does not have: everything below must follow from this one row. */
const widgets: RbacResourceRow = {
  resource: 'widgets',
  base: 'widgets/{project}',
  segments: ['shelf', 'name'],
  actions: rbacActions,
  policy: true,
  summary: ['get', 'delete'],
  grantedBy: 'project role policies',
};

let world: World;
let access: AccessService;
let unregister: () => void;
const wanda = user('wanda');
const otto = user('otto');

beforeAll(async () => {
  unregister = registerRbacResources([widgets]);
  world = await startWorld();
  await world.put('shop', [
    role('widget-reader', ['widgets/*, get, allow', 'widgets/attic/*, get, deny'], { users: ['wanda'] }),
    role('viewer', ['instances/*, get, allow'], { users: ['otto'] }),
  ]);
  access = createAccess({ authz: world.authz, projects: world.informer, config: { kubernetes: { namespace, inCluster: false } } });
});
afterAll(async () => {
  unregister();
  await world.close();
});

describe('adding a resource is one row of the vocabulary', () => {
  it('the compiler accepts it in project policies, under the project, with its path shape', () => {
    expect(compilePolicy('shop', 'widgets/*, get, allow')).toEqual({ line: ['widgets/shop/*', 'get', 'allow'] });
    expect(compilePolicy('shop', 'widgets/attic/lamp, delete, deny')).toEqual({ line: ['widgets/shop/attic/lamp', 'delete', 'deny'] });
    const tooDeep = compilePolicy('shop', 'widgets/a/b/c, get, allow');
    expect('error' in tooDeep && tooDeep.error).toContain('widgets/<shelf>/<name>');
  });

  it('can-i (Form B) accepts it and answers from policy; the summary (Form A) reports its actions', () => {
    expect(access.canI(wanda, { resource: 'widgets', action: 'get', object: 'shop' })).toEqual({ value: 'yes' });
    expect(access.canI(wanda, { resource: 'widgets', action: 'delete', object: 'shop' })).toEqual({ value: 'no' });
    expect(access.canI(otto, { resource: 'widgets', action: 'get', object: 'shop' })).toEqual({ value: 'no' });
    expect(access.canI(wanda, { resource: 'widgets', action: 'get', object: '*' })).toEqual({ value: 'yes' });
    expect(access.canISummary(wanda).projects.shop?.permissions).toMatchObject({ 'widgets:get': true, 'widgets:delete': false });
    expect(world.authz.can(wanda, 'get', 'widgets/shop/attic/lamp')).toBe(false);
    expect(world.authz.can(wanda, 'get', 'widgets/shop/hall/lamp')).toBe(true);
  });

  it('the CLI accepts it (singular or plural) and the docs table lists it', () => {
    expect(resourceName('widget')).toBe('widgets');
    expect(rbacDocsTable()).toContain('| widgets | `widgets/<p>/<shelf>/<name>` | get, list, create, update, delete | `widgets/<shelf>/<name>` |');
  });

  it('once the row is gone, nothing knows the resource', () => {
    unregister();
    try {
      expect('error' in compilePolicy('shop', 'widgets/*, get, allow')).toBe(true);
      expect(() => access.canI(wanda, { resource: 'widgets', action: 'get', object: 'shop' })).toThrow(/resource/);
      expect(() => resourceName('widgets')).toThrow(/unknown resource/);
      expect(rbacDocsTable()).not.toContain('widgets');
    } finally {
      unregister = registerRbacResources([widgets]);
    }
  });
});

describe('docs/rbac.md', () => {
  it('shows the vocabulary table generated from the OSS rows', () => {
    const docs = readFileSync(new URL('../../../../docs/rbac.md', import.meta.url), 'utf8');
    expect(docs).toContain(rbacDocsTable(ossRbacResources));
  });
});
