import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakePortico, goodToken, type FakePortico } from './support/fake-portico.js';
import { bearer, json, startServer, type RunningServer } from './support/server.js';

describe('input validation with the route schemas', () => {
  let portico: FakePortico;
  let server: RunningServer;

  beforeAll(async () => {
    portico = fakePortico();
    server = await startServer(portico);
  });
  afterAll(() => server.close());

  const get = (path: string) => fetch(`${server.url}${path}`, bearer(goodToken));

  it.each([
    ['page=0', 'page'],
    ['page=abc', 'page'],
    ['page=1.5', 'page'],
    ['pageSize=501', 'pageSize'],
    ['pageSize=0', 'pageSize'],
    ['sortBy=owner', 'sortBy'],
    ['sortOrder=sideways', 'sortOrder'],
    ['page=1&page=2', 'page'],
  ])('%s → 400 VALIDATION_FAILED naming %s', async (query, parameter) => {
    const res = await get(`/api/v1/rgds?${query}`);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(Object.keys(body.details.fields)).toEqual([parameter]);
    expect(body.details.in).toBe('query');
    expect(body.message).toContain(`"${parameter}"`);
  });

  it('passes the parsed query, with defaults and coerced numbers, to the domain', async () => {
    const res = await get('/api/v1/rgds?page=2&pageSize=5&category=db&search=Post&extendsKind=WebApp&ignored=1');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ items: [], totalCount: 0, page: 2, pageSize: 5 });
    expect(portico.calls.rgdQueries.at(-1)).toEqual({
      page: 2,
      pageSize: 5,
      category: 'db',
      search: 'Post',
      extendsKind: 'WebApp',
      sortBy: 'name',
      sortOrder: 'asc',
    });
  });

  it('keys body problems by JSON path', async () => {
    const res = await fetch(
      `${server.url}/api/v1/projects`,
      bearer(goodToken, json({ name: 'Bad_Name', destinations: [{ namespace: 'ok' }], roles: [{ name: 'dev' }, { name: 'NOPE' }] })),
    );
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(Object.keys(body.details.fields).sort()).toEqual(['name', 'roles.1.name']);
    expect(body.details.fields['roles.1.name']).toMatch(/DNS-1123/);
  });

  it.each([
    ['/api/v1/projects/Not_A_Label', 'name'],
    ['/api/v1/namespaces/dev/instances/webApp/shop', 'kind'],
    ['/api/v1/namespaces/dev/instances/WebApp/shop..x', 'name'],
    ['/api/v1/namespaces/..%2F..%2Fetc/instances/WebApp/shop', 'namespace'],
    ['/api/v1/account/can-i/Widgets!/get/alpha', 'resource'],
  ])('refuses a bad name in %s with 400 naming %s', async (path, field) => {
    const res = await get(path);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.details.in).toBe('path');
    expect(Object.keys(body.details.fields)).toContain(field);
  });

  it('refuses a malformed percent-encoding in a path parameter with 400', async () => {
    const res = await get('/api/v1/projects/%E0%A4%A');
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe('BAD_REQUEST');
  });

  it('authenticates before validating: a bad request without credentials is 401', async () => {
    const res = await fetch(`${server.url}/api/v1/rgds?page=0`);
    expect(res.status).toBe(401);
    expect((await res.json()).code).toBe('UNAUTHORIZED');
  });
});
