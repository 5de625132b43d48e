import http from 'node:http';
import net from 'node:net';
import { PorticoError, conflict, createLogger, rateLimited, unavailable } from '@portico/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendError } from '../src/http/errors.js';
import { fakePortico, goodToken, type FakePortico } from './support/fake-portico.js';
import { bearer, startServer, type RunningServer } from './support/server.js';

const secret = 'connection string postgres://admin:hunter2@db/internal';

describe('error mapping', () => {
  let portico: FakePortico;
  let server: RunningServer;

  beforeAll(async () => {
    portico = fakePortico({
      overrides: {
        catalog: {
          count: () => {
            throw new Error(secret);
          },
          filters: () => {
            throw rateLimited(42, { 'RateLimit-Limit': '100', 'RateLimit-Remaining': '0' });
          },
        },
        accounts: {
          list: async () => {
            throw new TypeError(secret);
          },
          create: async () => {
            throw conflict('account "bob" already exists', { resource: 'account' });
          },
        },
        projects: {
          namespaces: async () => {
            throw unavailable('cluster', 7);
          },
        },
      },
    });
    server = await startServer(portico);
  });
  afterAll(() => server.close());

  it('turns a thrown plain Error into 500 INTERNAL_ERROR without leaking it, and keeps running', async () => {
    const res = await fetch(`${server.url}/api/v1/rgds/count`, bearer(goodToken, { headers: { 'x-request-id': 'boom-1' } }));
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ code: 'INTERNAL_ERROR', message: 'internal error', details: {}, requestId: 'boom-1' });
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('at ');

    const logged = portico.logs.find((l) => l.requestId === 'boom-1' && l.level === 50);
    expect(JSON.stringify(logged)).toContain('hunter2');

    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('turns a rejected promise into 500 as well', async () => {
    const res = await fetch(`${server.url}/api/v1/accounts`, bearer(goodToken));
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain('hunter2');
  });

  it('keeps a PorticoError code, status, message and details', async () => {
    const res = await fetch(`${server.url}/api/v1/accounts`, {
      ...bearer(goodToken),
      method: 'POST',
      headers: { authorization: `Bearer ${goodToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bob', password: 'long-enough', groups: [] }),
    });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: 'CONFLICT', message: 'account "bob" already exists', details: { resource: 'account' } });
  });

  it('sends Retry-After and the extra headers of a 429', async () => {
    const res = await fetch(`${server.url}/api/v1/rgds/filters`, bearer(goodToken));
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('42');
    expect(res.headers.get('ratelimit-limit')).toBe('100');
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    expect((await res.json()).code).toBe('RATE_LIMIT_EXCEEDED');
  });

  it('sends Retry-After on 503', async () => {
    const res = await fetch(`${server.url}/api/v1/projects/alpha/namespaces`, bearer(goodToken));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(await res.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { component: 'cluster' } });
  });

  it('answers a malformed HTTP request with a JSON 400 and closes the socket', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(server.port, '127.0.0.1', () => socket.write('GARBAGE / HTTP/1.1\r\nHost: x\r\n\r\n'));
      let data = '';
      socket.on('data', (c) => (data += c.toString()));
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).toContain('X-Content-Type-Options: nosniff');
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'BAD_REQUEST' });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});

describe('sendError after the headers went out', () => {
  it('just ends the response', async () => {
    const log = createLogger('silent');
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
      sendError(req, res, new PorticoError('CONFLICT', 'too late'), 'rid', log);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as net.AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('partial');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
