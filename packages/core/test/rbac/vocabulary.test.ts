import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRbacVocabulary, ossRbacResources, ossRbacVocabulary, rbacActions, rbacDocsTable, type RbacResourceRow } from '@portico/api';
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
const vocabulary = createRbacVocabulary([widgets]);
const wanda = user('wanda');
const otto = user('otto');

beforeAll(async () => {
  world = await startWorld({ vocabulary });
  await world.put('shop', [
    role('widget-reader', ['widgets/*, get, allow', 'widgets/attic/*, get, deny'], { users: ['wanda'] }),
    role('viewer', ['instances/*, get, allow'], { users: ['otto'] }),
  ]);
  access = createAccess({ authz: world.authz, projects: world.informer, config: { kubernetes: { namespace, inCluster: false } }, vocabulary });
});
afterAll(async () => {
  await world.close();
});

describe('adding a resource is one row of the vocabulary', () => {
  it('the compiler accepts it in project policies, under the project, with its path shape', () => {
    expect(compilePolicy('shop', 'widgets/*, get, allow', vocabulary)).toEqual({ lines: [['widgets/shop/*', 'get', 'allow']] });
    expect(compilePolicy('shop', 'widgets/attic/lamp, delete, deny', vocabulary)).toEqual({ lines: [['widgets/shop/attic/lamp', 'delete', 'deny']] });
    const tooDeep = compilePolicy('shop', 'widgets/a/b/c, get, allow', vocabulary);
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

  it('the docs table of that vocabulary lists it', () => {
    expect(vocabulary.docsTable()).toContain('| widgets | `widgets/<p>/<shelf>/<name>` | get, list, create, update, delete | `widgets/<shelf>/<name>` |');
  });

  it('a vocabulary without the row knows nothing of the resource: the OSS one, or another Portico\'s', () => {
    const other = createRbacVocabulary([]);
    for (const v of [ossRbacVocabulary, other]) {
      expect('error' in compilePolicy('shop', 'widgets/*, get, allow', v)).toBe(true);
      expect(v.row('widgets')).toBeUndefined();
      expect(v.docsTable()).not.toContain('widgets');
      const elsewhere = createAccess({ authz: world.authz, projects: world.informer, config: { kubernetes: { namespace, inCluster: false } }, vocabulary: v });
      expect(() => elsewhere.canI(wanda, { resource: 'widgets', action: 'get', object: 'shop' })).toThrow(/resource/);
    }
    expect(() => resourceName('widgets')).toThrow(/unknown resource/);
  });

  it('a vocabulary is immutable: its rows cannot be changed or added to', () => {
    expect(() => (vocabulary.rows as RbacResourceRow[]).push(widgets)).toThrow();
    expect(() => ((vocabulary.rows[0] as { resource: string }).resource = 'x')).toThrow();
    expect(() => ((ossRbacResources as RbacResourceRow[])[0] as { policy: boolean }).policy = true).toThrow();
  });
});

describe('docs/rbac.md', () => {
  it('shows the vocabulary table generated from the OSS rows', () => {
    const docs = readFileSync(new URL('../../../../docs/rbac.md', import.meta.url), 'utf8');
    expect(docs).toContain(rbacDocsTable(ossRbacResources));
    expect(ossRbacVocabulary.docsTable()).toBe(rbacDocsTable(ossRbacResources));
  });
});
