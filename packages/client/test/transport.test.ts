import { afterEach, describe, expect, it } from 'vitest';
import { createClient, PorticoApiError } from '../src/index.js';
import { instance, json, rgd, startFakeServer } from './fake-server.js';

let server: Awaited<ReturnType<typeof startFakeServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const caught = async (p: Promise<unknown>): Promise<PorticoApiError> => {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(PorticoApiError);
    return e as PorticoApiError;
  }
  throw new Error('expected the call to fail');
};

describe('errors', () => {
  it('reads status, code, message, details and requestId from the envelope', async () => {
    server = await startFakeServer({
      'GET /api/v1/projects/secret': (_, res) =>
        json(res, 403, { code: 'FORBIDDEN', message: 'permission denied', details: { object: 'projects/secret' }, requestId: 'req-42' }),
    });
    const err = await caught(createClient({ baseUrl: server.baseUrl, token: 't' }).projects.get('secret'));
    expect(err).toMatchObject({ status: 403, code: 'FORBIDDEN', message: 'permission denied', details: { object: 'projects/secret' }, requestId: 'req-42' });
  });

  it('falls back to X-Request-ID and a status code name when the body is not an envelope', async () => {
    server = await startFakeServer({
      'GET /api/v1/rgds/count': (_, res) => {
        res.writeHead(404, { 'content-type': 'text/html', 'x-request-id': 'from-header' });
        res.end('<h1>nope</h1>');
      },
      'GET /api/v1/instances/count': (_, res) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end('bad gateway');
      },
    });
    const client = createClient({ baseUrl: server.baseUrl, retry: { retries: 0 } });
    expect(await caught(client.rgds.count())).toMatchObject({ status: 404, code: 'NOT_FOUND', requestId: 'from-header' });
    const gateway = await caught(client.instances.count());
    expect(gateway).toMatchObject({ status: 502, code: 'HTTP_502' });
    expect(gateway.message).toContain('bad gateway');
  });

  it('reports an unreachable server as NETWORK_ERROR', async () => {
    server = await startFakeServer({});
    const { baseUrl } = server;
    await server.close();
    server = undefined;
    const err = await caught(createClient({ baseUrl }).rgds.count());
    expect(err).toMatchObject({ status: 0, code: 'NETWORK_ERROR' });
  });

  it('rejects a response that does not match the schema, naming the route', async () => {
    server = await startFakeServer({ 'GET /api/v1/rgds/postgres': (_, res) => json(res, 200, { name: 42 }) });
    const err = await caught(createClient({ baseUrl: server.baseUrl }).rgds.get('postgres'));
    expect(err.code).toBe('INVALID_RESPONSE');
    expect(err.message).toContain('getRgd');
    expect(err.message).toContain('GET /api/v1/rgds/postgres');
    expect(err.details.issues).toEqual(expect.arrayContaining([expect.stringContaining('name')]));
  });
});

describe('retries', () => {
  it('waits for Retry-After on 429 before retrying a GET', async () => {
    let calls = 0;
    const times: number[] = [];
    server = await startFakeServer({
      'GET /api/v1/rgds/count': (_, res) => {
        times.push(Date.now());
        if (++calls === 1) return json(res, 429, { code: 'RATE_LIMIT_EXCEEDED', message: 'slow down', details: {} }, { 'retry-after': '1' });
        json(res, 200, { count: 7 });
      },
    });
    expect(await createClient({ baseUrl: server.baseUrl }).rgds.count()).toBe(7);
    expect(calls).toBe(2);
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(950);
  });

  it('never waits longer than maxDelayMs and gives up after `retries` more attempts', async () => {
    let calls = 0;
    server = await startFakeServer({
      'GET /api/v1/projects': (_, res) => {
        calls++;
        json(res, 503, { code: 'SERVICE_UNAVAILABLE', message: 'redis is unavailable, retry later', details: {} }, { 'retry-after': '3600' });
      },
    });
    const started = Date.now();
    const err = await caught(createClient({ baseUrl: server.baseUrl, retry: { retries: 2, maxDelayMs: 50 } }).projects.list());
    expect(err).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', retryAfter: 3600 });
    expect(calls).toBe(3);
    expect(Date.now() - started).toBeLessThan(3000); // an hour was asked for; the bound won
  });

  it('does not retry a POST unless asked to', async () => {
    let calls = 0;
    server = await startFakeServer({
      'POST /api/v1/projects': (_, res) => {
        calls++;
        json(res, 429, { code: 'RATE_LIMIT_EXCEEDED', message: 'slow down', details: {} }, { 'retry-after': '0' });
      },
    });
    const once = createClient({ baseUrl: server.baseUrl });
    expect(await caught(once.projects.create({ name: 'alpha' }))).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    expect(calls).toBe(1);

    const retrying = createClient({ baseUrl: server.baseUrl, retry: { retries: 1, retryNonIdempotent: true } });
    await caught(retrying.projects.create({ name: 'alpha' }));
    expect(calls).toBe(3);
  });

  it('does not retry other errors', async () => {
    let calls = 0;
    server = await startFakeServer({
      'GET /api/v1/rgds/count': (_, res) => {
        calls++;
        json(res, 500, { code: 'INTERNAL_ERROR', message: 'internal error', details: {} });
      },
    });
    await caught(createClient({ baseUrl: server.baseUrl }).rgds.count());
    expect(calls).toBe(1);
  });
});

describe('timeouts and abort', () => {
  const hanging = () => startFakeServer({ 'GET /api/v1/rgds/count': () => undefined });

  it('gives TIMEOUT when the server does not answer in time', async () => {
    server = await hanging();
    const err = await caught(createClient({ baseUrl: server.baseUrl, timeoutMs: 150 }).rgds.count());
    expect(err).toMatchObject({ status: 0, code: 'TIMEOUT' });
  });

  it("gives ABORTED when the caller's signal fires", async () => {
    server = await hanging();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const err = await caught(createClient({ baseUrl: server.baseUrl }).rgds.count({ signal: controller.signal }));
    expect(err.code).toBe('ABORTED');
  });

  it('aborts a Retry-After wait too', async () => {
    server = await startFakeServer({
      'GET /api/v1/rgds/count': (_, res) =>
        json(res, 429, { code: 'RATE_LIMIT_EXCEEDED', message: 'slow down', details: {} }, { 'retry-after': '30' }),
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const err = await caught(createClient({ baseUrl: server.baseUrl, retry: { maxDelayMs: 30_000 } }).rgds.count({ signal: controller.signal }));
    expect(err.code).toBe('ABORTED');
  });
});

describe('requests', () => {
  it('sends the bearer token, from getToken when given', async () => {
    server = await startFakeServer({ 'GET /api/v1/rgds/count': (_, res) => json(res, 200, { count: 1 }) });
    await createClient({ baseUrl: server.baseUrl, token: 'static' }).rgds.count();
    await createClient({ baseUrl: server.baseUrl, token: 'static', getToken: async () => 'fresh' }).rgds.count();
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer static', 'Bearer fresh']);
  });

  it('encodes every path segment', async () => {
    server = await startFakeServer({});
    const client = createClient({ baseUrl: server.baseUrl });
    await client.projects.bindUser('alpha', 'developer', 'a/../b@x.io').catch(() => undefined);
    expect(server.requests[0].url).toBe('/api/v1/projects/alpha/roles/developer/users/a%2F..%2Fb%40x.io');
  });

  it('pages through a list with the async iterator, keeping the filter', async () => {
    const all = ['a', 'b', 'c', 'd', 'e'].map((n) => rgd(n));
    server = await startFakeServer({
      'GET /api/v1/rgds': (req, res) => {
        const q = new URL(req.url, 'http://x').searchParams;
        const page = Number(q.get('page'));
        const pageSize = Number(q.get('pageSize'));
        json(res, 200, { items: all.slice((page - 1) * pageSize, page * pageSize), totalCount: all.length, page, pageSize });
      },
    });
    const names: string[] = [];
    for await (const item of createClient({ baseUrl: server.baseUrl }).rgds.all({ category: 'databases', tags: ['sql', 'ha'], pageSize: 2 })) {
      names.push(item.name);
    }
    expect(names).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(server.requests.map((r) => r.url)).toEqual([
      '/api/v1/rgds?category=databases&tags=sql%2Cha&pageSize=2&page=1',
      '/api/v1/rgds?category=databases&tags=sql%2Cha&pageSize=2&page=2',
      '/api/v1/rgds?category=databases&tags=sql%2Cha&pageSize=2&page=3',
    ]);
  });

  it('creates instances on the namespaced, the cluster-scoped and the flat path', async () => {
    const created = (_: unknown, res: Parameters<typeof json>[0]) => json(res, 201, instance('db'));
    server = await startFakeServer({
      'POST /api/v1/namespaces/alpha-dev/instances/Postgres': created,
      'POST /api/v1/instances/_/Cluster': created,
      'POST /api/v1/instances': created,
    });
    const client = createClient({ baseUrl: server.baseUrl });
    await client.instances.create({ kind: 'Postgres', name: 'db', project: 'alpha', namespace: 'alpha-dev', values: { size: 3 } });
    await client.instances.create({ kind: 'Cluster', name: 'c1', project: 'alpha', values: {}, deploymentMode: 'gitops' });
    await client.instances.create({ rgdName: 'postgres', name: 'db', project: 'alpha', namespace: 'alpha-dev', values: { size: 1 } });
    expect(server.requests.map((r) => [r.url, JSON.parse(r.body)])).toEqual([
      ['/api/v1/namespaces/alpha-dev/instances/Postgres', { name: 'db', project: 'alpha', values: { size: 3 } }],
      ['/api/v1/instances/_/Cluster', { name: 'c1', project: 'alpha', values: {}, deploymentMode: 'gitops' }],
      ['/api/v1/instances', { name: 'db', namespace: 'alpha-dev', rgdName: 'postgres', projectId: 'alpha', spec: { size: 1 } }],
    ]);
  });

  it('answers can-i with a boolean and treats 204 as no body', async () => {
    server = await startFakeServer({
      'GET /api/v1/account/can-i/instances/create/alpha': (_, res) => json(res, 200, { value: 'yes' }),
      'GET /api/v1/account/can-i/projects/delete/alpha': (_, res) => json(res, 200, { value: 'no' }),
      'DELETE /api/v1/projects/alpha': (_, res) => {
        res.writeHead(204);
        res.end();
      },
    });
    const client = createClient({ baseUrl: server.baseUrl });
    expect(await client.account.canI('instances', 'create', 'alpha')).toBe(true);
    expect(await client.account.canI('projects', 'delete', 'alpha')).toBe(false);
    expect(await client.projects.delete('alpha')).toBeUndefined();
  });
});
