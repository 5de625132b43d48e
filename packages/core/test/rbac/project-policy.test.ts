import { describe, expect, it } from 'vitest';
import { buildProjectPolicy } from '../../src/rbac/project-policy.js';
import { role } from './world.js';

const source = (roles: ReturnType<typeof role>[]) => ({ name: 'alpha', roles });
const viewer = (users: string[], policies = ['instances/*, get, allow']) => role('viewer', policies, { users });

describe('buildProjectPolicy', () => {
  it('keeps the enforcer when only who is bound changed, and builds a new one when the lines changed', () => {
    const first = buildProjectPolicy(source([viewer(['alice'])]));
    const bound = buildProjectPolicy(source([viewer(['alice', 'bob'])]), first);
    expect(bound.enforcer).toBe(first.enforcer);
    expect(bound.bindings.get('user:bob')).toEqual(['proj:alpha:viewer']);
    expect(first.bindings.has('user:bob')).toBe(false);

    const narrowed = buildProjectPolicy(source([viewer(['alice', 'bob'], ['instances/*, get, allow', 'instances/dev/*, get, deny'])]), bound);
    expect(narrowed.enforcer).not.toBe(bound.enforcer);
    const roles = new Set(['proj:alpha:viewer']);
    expect(bound.decide(roles, 'instances/alpha/dev/App/x', 'get')).toBe(true);
    expect(narrowed.decide(roles, 'instances/alpha/dev/App/x', 'get')).toBe(false);
  });

  it('answers the previous version itself for a source that changed nothing, and not for a user moved between roles', () => {
    const two = (viewers: string[], editors: string[]) => source([viewer(viewers), role('editor', ['instances/*, *, allow'], { users: editors })]);
    const first = buildProjectPolicy(two(['alice'], ['bob']));
    expect(buildProjectPolicy(two(['alice'], ['bob']), first)).toBe(first);
    const moved = buildProjectPolicy(two(['alice', 'bob'], []), first);
    expect(moved).not.toBe(first);
    expect(moved.enforcer).toBe(first.enforcer);
    expect(moved.bindings.get('user:bob')).toEqual(['proj:alpha:viewer']);
  });

  it('builds a new enforcer for a role renamed or confined to other namespaces, though its policies read the same', () => {
    const first = buildProjectPolicy(source([viewer(['alice'])]));
    const renamed = buildProjectPolicy(source([role('reader', ['instances/*, get, allow'], { users: ['alice'] })]), first);
    expect(renamed.enforcer).not.toBe(first.enforcer);
    const confined = buildProjectPolicy(source([{ ...viewer(['alice']), destinations: ['dev'] }]), first);
    expect(confined.enforcer).not.toBe(first.enforcer);
    expect(confined.decide(new Set(['proj:alpha:viewer']), 'instances/alpha/prod/App/x', 'get')).toBe(false);
    expect(first.decide(new Set(['proj:alpha:viewer']), 'instances/alpha/prod/App/x', 'get')).toBe(true);
  });

  it('a binding change in a project with a role that counts for nothing binds nobody to it and still reports it', () => {
    const duplicate = role('viewer', ['instances/*, *, allow'], { users: ['mallory'] });
    const first = buildProjectPolicy(source([viewer(['alice']), duplicate]));
    expect(first.errors.map((e) => e.message)).toEqual(['role "viewer" is defined more than once']);
    const bound = buildProjectPolicy(source([viewer(['alice', 'bob']), { ...duplicate, users: ['mallory', 'eve'] }]), first);
    expect(bound.enforcer).toBe(first.enforcer);
    expect([...bound.bindings.keys()]).toEqual(['user:alice', 'user:bob']);
    expect(bound.errors).toEqual(first.errors);
    expect(bound.roleNames).toEqual(['viewer']);
  });
});
