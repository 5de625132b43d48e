import { Enforcer, newModelFromString } from 'casbin';
import { test, expect } from 'vitest';
class E extends Enforcer { static of(m: any) { const e = new E(); e.setModel(m); e.fm.addFunction('hasRole', (s: Set<string>, r: string) => s.has(r)); e.fm.addFunction('om', (a: string, b: string) => new RegExp('^' + b.replace(/\*/g, '.*') + '$').test(a)); return e; } }
test('x', () => {
  const m = newModelFromString(`[request_definition]
r = sub, obj, act
[policy_definition]
p = sub, obj, act, eft
[policy_effect]
e = some(where (p.eft == allow)) && !some(where (p.eft == deny))
[matchers]
m = hasRole(r.sub, p.sub) && om(r.obj, p.obj) && (p.act == "*" || r.act == p.act)`);
  m.addPolicy('p', 'p', ['a', 'instances/alpha/*', '*', 'allow']);
  m.addPolicy('p', 'p', ['b', 'instances/alpha/prod/*', 'delete', 'deny']);
  const e = E.of(m);
  expect(e.enforceSync(new Set(['a']), 'instances/alpha/dev/x', 'delete')).toBe(true);
  expect(e.enforceSync(new Set(['a', 'b']), 'instances/alpha/prod/x', 'delete')).toBe(false);
  expect(e.enforceSync(new Set(['a', 'b']), 'instances/alpha/prod/x', 'get')).toBe(true);
  expect(e.enforceSync(new Set([]), 'instances/alpha/prod/x', 'get')).toBe(false);
});
