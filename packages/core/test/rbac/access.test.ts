import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as api from '@portico/api';
import { createAccess } from '../../src/rbac/index.js';
import { defaultRoles } from '../../src/projects/index.js';
import type { AccessService } from '../../src/types.js';
import type { Actor } from '../../src/actor.js';
import { isPorticoError } from '../../src/errors.js';
import { namespace, role, startWorld, user, type World } from './world.js';

let world: World;
let access: AccessService;

const admin = user('admin');
const pat = user('pat'); // platform-admin of alpha
const dev = user('dev', ['devs']); // developer of alpha through a group, viewer of beta
const vera = user('vera'); // viewer of alpha
const outsider = user('olga');
const restricted = user('rita'); // developer of alpha, but secrets and prod instances denied

const withBindings = (bind: Record<string, { users?: string[]; groups?: string[] }>) =>
  defaultRoles().map((r) => ({ ...r, users: bind[r.name]?.users ?? [], groups: bind[r.name]?.groups ?? [] }));

beforeAll(async () => {
  world = await startWorld();
  await world.put('alpha', [
    ...withBindings({ 'platform-admin': { users: ['pat'] }, developer: { groups: ['devs'], users: ['rita'] }, viewer: { users: ['vera'] } }),
    role('restricted', ['secrets/*, *, deny', 'instances/*, delete, deny'], { users: ['rita'] }),
  ]);
  await world.put('beta', withBindings({ viewer: { users: ['dev'] } }));
  await world.put('gamma', withBindings({}));
  access = createAccess({ authz: world.authz, projects: world.informer, config: { kubernetes: { namespace, inCluster: false } } });
});
afterAll(() => world.close());

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

type Case = [string, Actor, api.CanIParams['resource'], string, string, 'yes' | 'no' | 404];

describe('can-i (Form B)', () => {
  const cases: Case[] = [
    ['admin creates projects', admin, 'projects', 'create', '*', 'yes'],
    ['admin lists projects (-)', admin, 'projects', 'list', '-', 'yes'],
    ['admin updates roles of alpha', admin, 'roles', 'update', 'alpha', 'yes'],
    ['admin deletes instances anywhere', admin, 'instances', 'delete', '*', 'yes'],
    ['admin gets gamma (no binding)', admin, 'projects', 'get', 'gamma', 'yes'],
    ['admin asks about an unknown project', admin, 'instances', 'get', 'nope', 404],
    ['platform-admin creates instances in alpha', pat, 'instances', 'create', 'alpha', 'yes'],
    ['platform-admin deletes secrets in alpha', pat, 'secrets', 'delete', 'alpha', 'yes'],
    ['platform-admin binds members in alpha', pat, 'members', 'create', 'alpha', 'yes'],
    ['platform-admin unbinds members in alpha', pat, 'members', 'delete', 'alpha', 'yes'],
    ['platform-admin may not change roles', pat, 'roles', 'update', 'alpha', 'no'],
    ['platform-admin may not update the project', pat, 'projects', 'update', 'alpha', 'no'],
    ['platform-admin may not delete the project', pat, 'projects', 'delete', 'alpha', 'no'],
    ['platform-admin may not create projects', pat, 'projects', 'create', '*', 'no'],
    ['platform-admin everything on instances', pat, 'instances', '*', 'alpha', 'yes'],
    ['platform-admin is not in beta: hidden like an unknown project', pat, 'instances', 'get', 'beta', 404],
    ['developer (group) creates instances in alpha', dev, 'instances', 'create', 'alpha', 'yes'],
    ['developer reads rgds in alpha', dev, 'rgds', 'get', 'alpha', 'yes'],
    ['developer may not read secrets', dev, 'secrets', 'get', 'alpha', 'no'],
    ['developer may not bind', dev, 'members', 'create', 'alpha', 'no'],
    ['developer gets the project', dev, 'projects', 'get', 'alpha', 'yes'],
    ['developer is only a viewer in beta', dev, 'instances', 'create', 'beta', 'no'],
    ['developer may get instances in beta', dev, 'instances', 'get', 'beta', 'yes'],
    ['developer creates instances in some project (*)', dev, 'instances', 'create', '*', 'yes'],
    ['developer creates secrets in no project (*)', dev, 'secrets', 'create', '*', 'no'],
    ['viewer gets instances in alpha', vera, 'instances', 'get', 'alpha', 'yes'],
    ['viewer may not create instances', vera, 'instances', 'create', 'alpha', 'no'],
    ['viewer may not update instances', vera, 'instances', 'update', 'alpha', 'no'],
    ['viewer may not bind', vera, 'members', 'create', 'alpha', 'no'],
    ['viewer may not list rgds (only get)', vera, 'rgds', 'list', 'alpha', 'no'],
    ['deny wins: restricted developer may not delete instances', restricted, 'instances', 'delete', 'alpha', 'no'],
    ['deny wins: restricted developer may not read secrets', restricted, 'secrets', 'get', 'alpha', 'no'],
    ['restricted developer still creates instances', restricted, 'instances', 'create', 'alpha', 'yes'],
    ['outsider asks about an existing project: hidden like an unknown one', outsider, 'projects', 'get', 'alpha', 404],
    ['outsider asks about instances in alpha: hidden too', outsider, 'instances', 'get', 'alpha', 404],
    ['outsider anywhere (*)', outsider, 'instances', 'get', '*', 'no'],
    ['outsider asks about an unknown project', outsider, 'projects', 'get', 'nope', 404],
    ['outsider may not create projects', outsider, 'projects', 'create', '-', 'no'],
  ];

  it.each(cases)('%s', (_title, actor, resource, action, object, expected) => {
    const ask = () => access.canI(actor, { resource, action: action as api.CanIParams['action'], object });
    if (expected === 404) {
      const error = thrown(ask);
      expect(isPorticoError(error) && { code: error.code, details: error.details }).toEqual({
        code: 'NOT_FOUND',
        details: { resource: 'project', identifier: object },
      });
    } else {
      expect(ask()).toEqual({ value: expected });
    }
  });

  const fieldVocabulary = ['projects', 'instances', 'rgds', 'secrets', 'members', 'roles', 'repositories', 'settings', 'users',
    'applications', 'clusters', 'compliance', 'audit', 'license', 'categories', 'views'];

  it.each(fieldVocabulary)('answers %s from policy (a Server Admin yes, an outsider no), never 400', (resource) => {
    expect(access.canI(admin, { resource, action: 'get', object: 'alpha' })).toEqual({ value: 'yes' });
    expect(access.canI(outsider, { resource, action: 'get', object: '*' })).toEqual({ value: 'no' });
    expect(access.canI(outsider, { resource, action: 'list', object: '-' })).toEqual({ value: 'no' });
  });

  it('asks reveal of secrets as its own action', () => {
    expect(access.canI(pat, { resource: 'secrets', action: 'reveal', object: 'alpha' })).toEqual({ value: 'yes' });
    expect(access.canI(vera, { resource: 'secrets', action: 'reveal', object: 'alpha' })).toEqual({ value: 'no' });
  });

  it('rejects an unknown resource or action with BAD_REQUEST', () => {
    for (const params of [
      { resource: 'widgets', action: 'get', object: 'alpha' },
      { resource: 'instances', action: 'explode', object: 'alpha' },
      { resource: 'instances', action: 'get', object: 'Not/A/Name' },
    ]) {
      const error = thrown(() => access.canI(vera, params as api.CanIParams));
      expect(isPorticoError(error) && error.code).toBe('BAD_REQUEST');
    }
  });
});

describe('can-i summary (Form A)', () => {
  it('lists the member projects with the first role, all roles and project-wide permissions', () => {
    const summary = access.canISummary(restricted);
    expect(summary.serverAdmin).toBe(false);
    expect(Object.keys(summary.projects)).toEqual(['alpha']);
    const alpha = summary.projects.alpha;
    expect(alpha.role).toBe('developer');
    expect(alpha.roles).toEqual(['developer', 'restricted']);
    expect(alpha.permissions).toMatchObject({
      'instances:get': true,
      'instances:create': true,
      'instances:delete': false,
      'secrets:get': false,
      'rgds:get': true,
      'members:create': false,
      'members:delete': false,
      'project:get': true,
      'roles:update': false,
    });
  });

  it('covers every project for a Server Admin', () => {
    const summary = access.canISummary(admin);
    expect(summary.serverAdmin).toBe(true);
    expect(Object.keys(summary.projects).sort()).toEqual(['alpha', 'beta', 'gamma']);
    expect(summary.projects.gamma.roles).toEqual([]);
    expect(summary.projects.gamma.role).toBe('role:serveradmin');
    // Everything a member can be granted, all granted (an empty map would grant nothing).
    expect(summary.projects.gamma.permissions).toMatchObject({
      'instances:get': true,
      'instances:create': true,
      'instances:delete': true,
      'secrets:get': true,
      'rgds:get': true,
      'members:create': true,
      'members:delete': true,
      'project:get': true,
      'roles:update': true,
    });
    expect(Object.values(summary.projects.gamma.permissions).every(Boolean)).toBe(true);
  });

  it('is empty for an outsider', () => {
    expect(access.canISummary(outsider)).toEqual({ serverAdmin: false, projects: {} });
  });
});

describe('account info', () => {
  it('describes the caller from current policy and the token', () => {
    const info = access.accountInfo(dev);
    expect(info).toEqual({
      userID: 'dev',
      email: 'dev@local', // a local account's address
      displayName: 'dev',
      groups: ['devs'],
      casbinRoles: [],
      serverAdmin: false,
      projects: ['alpha', 'beta'],
      roles: { alpha: 'developer', beta: 'viewer' },
      issuer: 'Local',
      tokenIssuedAt: 0,
      tokenExpiresAt: 8.64e12,
    });
    expect(access.accountInfo(admin)).toMatchObject({ serverAdmin: true, casbinRoles: ['role:serveradmin'], projects: [] });
  });

  it('gives token times as Unix seconds and names the identity provider of a signed-in OIDC user (§11.9)', () => {
    const issuedAt = new Date('2026-03-01T10:00:00.900Z');
    const oidcUser = { ...user('oidc:corp:4711'), local: false, email: 'ann@example.com', issuedAt, expiresAt: new Date(issuedAt.getTime() + 3600_000) };
    const info = access.accountInfo(oidcUser);
    expect(info).toMatchObject({ issuer: 'corp', email: 'ann@example.com', tokenIssuedAt: 1772359200, tokenExpiresAt: 1772362800 });
    expect(api.AccountInfo.parse(info)).toEqual(info);
  });
});

describe('can-i asked again by the same caller', () => {
  // One actor per token asks the same question over and over; its answer must still follow every change.
  const zed = user('zed', ['zeds']);
  const ask = (resource: api.CanIParams['resource'], action: string, object: string) => {
    try {
      return access.canI(zed, { resource, action, object } as api.CanIParams).value;
    } catch (error) {
      return isPorticoError(error) ? error.code : String(error);
    }
  };

  it('follows a role change, a group binding, the project going and coming back, at once', async () => {
    await world.put('delta', withBindings({ developer: { users: ['zed'] } }));
    expect([ask('instances', 'create', 'delta'), ask('instances', 'create', 'delta')]).toEqual(['yes', 'yes']);
    expect(ask('projects', 'get', 'delta')).toBe('yes');

    await world.put('delta', withBindings({ viewer: { users: ['zed'] } }));
    expect(ask('instances', 'create', 'delta')).toBe('no');

    await world.put('delta', withBindings({ viewer: { users: ['zed'] }, developer: { groups: ['zeds'] } }));
    expect(ask('instances', 'create', 'delta')).toBe('yes');

    await world.put('delta', withBindings({}));
    expect(ask('instances', 'create', 'delta')).toBe('NOT_FOUND');
    expect(ask('instances', 'create', '*')).toBe('no');

    await world.put('delta', withBindings({ developer: { users: ['zed'] } }));
    expect(ask('instances', 'create', '*')).toBe('yes');
    await world.remove('delta');
    expect([ask('instances', 'create', 'delta'), ask('instances', 'create', '*')]).toEqual(['NOT_FOUND', 'no']);

    await world.put('delta', withBindings({ developer: { users: ['zed'] } }));
    expect(ask('instances', 'create', 'delta')).toBe('yes');
    await world.remove('delta');
  });

  it('answers each question for itself, and refuses a malformed one every time', () => {
    expect([ask('instances', 'create', 'alpha'), ask('instances', 'create', 'beta'), ask('secrets', 'create', 'alpha')]).toEqual(['NOT_FOUND', 'NOT_FOUND', 'NOT_FOUND']);
    expect([ask('gadgets', 'get', 'alpha'), ask('gadgets', 'get', 'alpha')]).toEqual(['BAD_REQUEST', 'BAD_REQUEST']);
    expect([access.canI(dev, { resource: 'instances', action: 'create', object: 'alpha' }).value, access.canI(dev, { resource: 'instances', action: 'create', object: 'beta' }).value]).toEqual(['yes', 'no']);
    expect([access.canI(dev, { resource: 'instances', action: 'create', object: 'beta' }).value, access.canI(dev, { resource: 'instances', action: 'create', object: 'alpha' }).value]).toEqual(['no', 'yes']);
  });
});
