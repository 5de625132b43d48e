import { routes, type RouteDef } from '@portico/api';
import { describe, expect, it } from 'vitest';
import { orderRoutes } from '../src/http/route-paths.js';
import { createRouter } from '../src/http/router.js';

/**
 * The reference the router is checked against, not a matcher of the server: polka's own router's semantics
 * (regexparam), one pattern per route: one segment per parameter, an optional trailing slash, case-insensitive.
 */
function compilePath(method: string, path: string) {
  const names: string[] = [];
  const source = path
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      if (!(segment.startsWith('{') && segment.endsWith('}'))) return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
      names.push(segment.slice(1, -1));
      return '/([^/]+?)';
    })
    .join('');
  const pattern = new RegExp(`^${source || ''}/?$`, 'i');
  return {
    method,
    path,
    match(pathname: string): Record<string, string> | undefined {
      const m = pattern.exec(pathname);
      if (!m) return undefined;
      return Object.fromEntries(names.map((name, i) => [name, m[i + 1]]));
    },
  };
}

describe('route paths', () => {
  it('the router finds the static route before a parameter one, answers HEAD as GET and lists Allow', () => {
    const endpoint = (name: string) => () => name;
    const router = createRouter([
      { method: 'GET', path: '/api/v1/rgds/{name}', endpoint: endpoint('getRgd') },
      { method: 'GET', path: '/api/v1/rgds/count', endpoint: endpoint('countRgds') },
      { method: 'DELETE', path: '/api/v1/rgds/{name}', endpoint: endpoint('deleteRgd') },
    ]);
    const run = (method: string, path: string) => {
      const hit = router.find(method, path);
      return hit && { route: hit.endpoint(undefined as never, undefined as never, hit.params), params: hit.params };
    };
    expect(run('GET', '/api/v1/rgds/count')).toEqual({ route: 'countRgds', params: {} });
    expect(run('HEAD', '/api/v1/rgds/web%20app')).toEqual({ route: 'getRgd', params: { name: 'web%20app' } });
    expect(router.find('POST', '/api/v1/rgds/x')).toBeUndefined();
    expect(router.allowed('/api/v1/rgds/x')).toEqual(['GET', 'DELETE']);
  });

  it('a static path is never a parameter of another method: POST /instances/count is 405, not a kind "count"', () => {
    const router = createRouter(
      (routes as readonly RouteDef[]).map((r) => ({ method: r.method, path: r.path, endpoint: () => r.id })),
    );
    const idOf = (method: string, path: string) => router.find(method, path)?.endpoint(undefined as never, undefined as never, {});
    expect(idOf('GET', '/api/v1/instances/count')).toBe('countInstances');
    expect(idOf('POST', '/api/v1/instances/count')).toBeUndefined();
    expect(router.allowed('/api/v1/instances/count')).toEqual(['GET']);
    expect(idOf('POST', '/api/v1/instances/TenantNamespace')).toBe('createClusterInstanceAlias');
    expect(idOf('GET', '/api/v1/instances/TenantNamespace/t1')).toBe('getClusterInstanceAlias');
    expect(idOf('GET', '/api/v1/instances/_/TenantNamespace/t1/events')).toBe('clusterInstanceEvents');
    // `_/{kind}` is a create path: other methods are 405 there, not a read of an instance named after the kind
    expect(idOf('GET', '/api/v1/instances/_/TenantNamespace')).toBeUndefined();
    expect(router.allowed('/api/v1/instances/_/TenantNamespace')).toEqual(['POST']);
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

  it('dispatches every path of the real table as the route patterns do, tried one by one in order', () => {
    const table = routes as readonly RouteDef[];
    const router = createRouter(table.map((r) => ({ method: r.method, path: r.path, endpoint: () => r.id })));
    const ordered = orderRoutes(table).map((r) => ({ route: r, matcher: compilePath(r.method, r.path) }));
    /** The reference: the first pattern, in dispatch order, that matches the path, then that template's method. */
    const reference = (method: string, path: string) => {
      const first = ordered.find((c) => c.matcher.match(path));
      const hit = first && ordered.find((c) => c.route.path === first.route.path && (c.route.method === method || (method === 'HEAD' && c.route.method === 'GET')));
      return hit && { id: hit.route.id, params: hit.matcher.match(path) };
    };
    /** The reference `Allow`: the methods of that first template, in the header's order. */
    const referenceAllowed = (path: string) => {
      const first = ordered.find((c) => c.matcher.match(path));
      const methods = new Set<string>(ordered.filter((c) => first && c.route.path === first.route.path).map((c) => c.route.method));
      return ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].filter((m) => methods.has(m));
    };
    const variants = (template: string) => {
      const concrete = template.replace(/\{[^}]+\}/g, (m) => (m.length % 2 ? 'x' : 'Count'));
      return [concrete, `${concrete}/`, `${concrete}//`, concrete.toUpperCase(), concrete.replace('/api', '//api'), `${concrete}/extra`, concrete.replace(/x$/, 'caf%C3%A9'), concrete.replace(/x/, 'ǅ'), concrete.slice(0, -1), '', '/', 'api/v1/rgds'];
    };
    let compared = 0;
    for (const route of table)
      for (const path of variants(route.path)) {
        expect(router.allowed(path), `Allow ${path}`).toEqual(referenceAllowed(path));
        for (const method of ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE']) {
          const hit = router.find(method, path);
          expect(hit && { id: hit.endpoint(undefined as never, undefined as never, {}), params: hit.params }, `${method} ${path}`).toEqual(reference(method, path));
          compared++;
        }
      }
    expect(compared).toBeGreaterThan(1000);
  });

  it('answers a path asked again as it did the first time, whatever the method and however many paths came between', () => {
    const endpoint = (name: string) => () => name;
    const router = createRouter([
      { method: 'GET', path: '/api/v1/account/can-i/{resource}/{action}/{object}', endpoint: endpoint('canI') },
      { method: 'GET', path: '/api/v1/rgds/count', endpoint: endpoint('countRgds') },
      { method: 'GET', path: '/api/v1/rgds/{name}', endpoint: endpoint('getRgd') },
      { method: 'DELETE', path: '/api/v1/rgds/{name}', endpoint: endpoint('deleteRgd') },
    ]);
    const canI = '/api/v1/account/can-i/instances/create/team-050';
    const run = (method: string, path: string) => {
      const hit = router.find(method, path);
      return hit && { route: hit.endpoint(undefined as never, undefined as never, hit.params), params: { ...hit.params } };
    };
    const first = router.find('GET', canI)!;
    // What one request was handed, the next is handed too: nothing can change it in between.
    expect(() => ((first.params as Record<string, string>).object = 'team-999')).toThrow(TypeError);
    for (let i = 0; i < 5000; i++) router.find('GET', `/api/v1/rgds/rgd-${i}`);
    expect(run('GET', canI)).toEqual({ route: 'canI', params: { resource: 'instances', action: 'create', object: 'team-050' } });
    expect(run('HEAD', canI)?.route).toBe('canI');
    expect(run('GET', '/api/v1/rgds/rgd-7')).toEqual({ route: 'getRgd', params: { name: 'rgd-7' } });
    expect(run('DELETE', '/api/v1/rgds/rgd-7')).toEqual({ route: 'deleteRgd', params: { name: 'rgd-7' } });
    expect(router.find('POST', '/api/v1/rgds/rgd-7')).toBeUndefined();
    expect(run('GET', '/api/v1/RGDS/count')?.route).toBe('countRgds');
    expect(run('GET', '/api/v1/rgds/count')?.route).toBe('countRgds');
  });

  it('extracts parameters and lists allowed methods', () => {
    const endpoint = () => undefined;
    const router = createRouter([
      { method: 'GET', path: '/api/v1/projects/{name}/roles/{role}/users/{user}', endpoint },
      { method: 'DELETE', path: '/a/{x}', endpoint },
      { method: 'GET', path: '/a/{x}', endpoint },
      { method: 'POST', path: '/a', endpoint },
    ]);
    expect(router.find('GET', '/api/v1/projects/alpha/roles/dev/users/bob%40corp')?.params).toEqual({ name: 'alpha', role: 'dev', user: 'bob%40corp' });
    expect(router.find('GET', '/api/v1/projects/alpha/roles/dev/users')).toBeUndefined();
    expect(router.allowed('/a/1')).toEqual(['GET', 'DELETE']);
    expect(router.allowed('/a')).toEqual(['POST']);
    expect(router.allowed('/b')).toEqual([]);
  });
});
