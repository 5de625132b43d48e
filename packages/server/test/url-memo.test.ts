import { describe, expect, it } from 'vitest';
import { routes as table, type RouteDef } from '@portico/api';
import { remembersUrls } from '../src/http/route-handler.js';

const routes: readonly RouteDef[] = table;

// A route that remembers URLs keeps each one (with its parsed query) in memory. URLs of routes reachable without
// sign-in may carry one-time secrets, an OIDC callback's code and state, and anyone can fill such a cache.
describe('which routes keep the URLs they were asked', () => {
  it('no route reachable without sign-in keeps one, the OIDC callback included', () => {
    const open = routes.filter((r) => r.auth !== 'user');
    expect(open.map((r) => r.id)).toContain('oidcCallback');
    expect(open.filter(remembersUrls).map((r) => r.id)).toEqual([]);
  });

  it('signed-in routes with a path or a query keep them, routes without either have nothing to keep', () => {
    const signedIn = routes.filter((r) => r.auth === 'user');
    const withInput = signedIn.filter((r) => r.params !== undefined || r.query !== undefined);
    expect(withInput.length).toBeGreaterThan(0);
    expect(withInput.every(remembersUrls)).toBe(true);
    expect(signedIn.filter((r) => r.params === undefined && r.query === undefined).some(remembersUrls)).toBe(false);
  });
});
