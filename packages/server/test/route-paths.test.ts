import { routes, type RouteDef } from '@portico/api';
import { describe, expect, it } from 'vitest';
import { allowedMethods, compilePath, orderRoutes, toPolkaPath } from '../src/http/route-paths.js';

describe('route paths', () => {
  it('turns {param} into :param', () => {
    expect(toPolkaPath('/api/v1/namespaces/{namespace}/instances/{kind}/{name}')).toBe('/api/v1/namespaces/:namespace/instances/:kind/:name');
  });

  it('orders static segments before parameters where they collide, whatever the table order', () => {
    const table = [
      { path: '/api/v1/rgds/{name}' },
      { path: '/api/v1/instances/{x}/{y}' },
      { path: '/api/v1/rgds/count' },
      { path: '/api/v1/instances/_/{kind}' },
      { path: '/api/v1/rgds/filters' },
    ];
    const order = orderRoutes(table).map((r) => r.path);
    expect(order.indexOf('/api/v1/rgds/count')).toBeLessThan(order.indexOf('/api/v1/rgds/{name}'));
    expect(order.indexOf('/api/v1/rgds/filters')).toBeLessThan(order.indexOf('/api/v1/rgds/{name}'));
    expect(order.indexOf('/api/v1/instances/_/{kind}')).toBeLessThan(order.indexOf('/api/v1/instances/{x}/{y}'));
  });

  it('leaves no route of the real table shadowed by an earlier parametrised one', () => {
    const ordered = orderRoutes(routes as readonly RouteDef[]);
    ordered.forEach((route, i) => {
      const concrete = route.path.replace(/\{[^}]+\}/g, 'x');
      const first = ordered.find((r) => r.method === route.method && compilePath(r.method, r.path).match(concrete));
      expect(first?.id, `${route.method} ${route.path}`).toBe(route.id);
      expect(ordered.indexOf(first!)).toBeLessThanOrEqual(i);
    });
  });

  it('extracts parameters and lists allowed methods', () => {
    const m = compilePath('GET', '/api/v1/projects/{name}/roles/{role}/users/{user}');
    expect(m.match('/api/v1/projects/alpha/roles/dev/users/bob%40corp')).toEqual({ name: 'alpha', role: 'dev', user: 'bob%40corp' });
    expect(m.match('/api/v1/projects/alpha/roles/dev/users')).toBeUndefined();
    const matchers = [compilePath('DELETE', '/a/{x}'), compilePath('GET', '/a/{x}'), compilePath('POST', '/a')];
    expect(allowedMethods(matchers, '/a/1')).toEqual(['GET', 'DELETE']);
    expect(allowedMethods(matchers, '/b')).toEqual([]);
  });
});
