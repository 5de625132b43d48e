import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakePortico, goodToken, type FakePortico } from './support/fake-portico.js';
import { bearer, json, startServer, type RunningServer } from './support/server.js';

/** A chunked upload (no Content-Length), so only counting the bytes as they stream can stop it. */
function chunkedUpload(port: number, path: string, totalBytes: number, opts: { end?: boolean } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${goodToken}` } });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body });
        if (opts.end === false) req.destroy();
      });
    });
    req.on('error', reject);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < totalBytes) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (opts.end !== false) req.end();
    };
    pump();
  });
}

describe('request bodies', () => {
  let portico: FakePortico;
  let server: RunningServer;

  beforeAll(async () => {
    portico = fakePortico();
    server = await startServer(portico);
  });
  afterAll(() => server.close());

  const post = (path: string, init: RequestInit) => fetch(`${server.url}${path}`, bearer(goodToken, init));

  it('answers malformed JSON with 400 BAD_REQUEST and no parser message', async () => {
    const res = await post('/api/v1/projects', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name": "alpha", oops}' });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toMatchObject({ code: 'BAD_REQUEST', message: 'malformed JSON body', details: {} });
    expect(JSON.stringify(body)).not.toContain('oops');
  });

  it('requires application/json when a body is present', async () => {
    const res = await post('/api/v1/projects', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"name":"alpha"}' });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe('BAD_REQUEST');

    const ok = await post('/api/v1/projects', json({ name: 'alpha' }, { 'content-type': 'application/json; charset=utf-8' }));
    expect(ok.status).toBe(201);
  });

  it('requires JSON for any body, also on routes that take none', async () => {
    const res = await post('/api/v1/auth/logout', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(res.status).toBe(400);
    const empty = await post('/api/v1/auth/logout', { method: 'POST' });
    expect(empty.status).toBe(200);
  });

  it('rejects a 2 MiB body with 413 by Content-Length, and keeps serving', async () => {
    const big = JSON.stringify({ name: 'alpha', description: 'x'.repeat(2 * 1024 * 1024) });
    const res = await post('/api/v1/projects', { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });

    const next = await fetch(`${server.url}/healthz`);
    expect(next.status).toBe(200);
  });

  it('stops a chunked upload with 413 as soon as it passes 1 MiB, and keeps serving', async () => {
    const res = await chunkedUpload(server.port, '/api/v1/projects', 2 * 1024 * 1024);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('answers 413 without waiting for the rest of an upload that never ends', async () => {
    const res = await chunkedUpload(server.port, '/api/v1/projects', 1.5 * 1024 * 1024, { end: false });
    expect(res.status).toBe(413);
  });

  it('applies the limit on routes without a body schema as well', async () => {
    const res = await chunkedUpload(server.port, '/api/v1/auth/logout', 2 * 1024 * 1024);
    expect(res.status).toBe(413);
  });

  it('accepts a body just under the limit', async () => {
    const body = JSON.stringify({ name: 'alpha', description: 'x'.repeat(4000) });
    const res = await post('/api/v1/projects', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(201);
  });

  it.each([
    ['__proto__ at the top', '{"name":"alpha","__proto__":{"isAdmin":true}}'],
    ['constructor nested', '{"name":"alpha","roles":[{"name":"dev","constructor":{"prototype":{"x":1}}}]}'],
    ['prototype deep', '{"name":"alpha","destinations":[{"namespace":"dev","prototype":1}]}'],
  ])('refuses prototype-pollution keys (%s) with 400', async (_what, body) => {
    const res = await post('/api/v1/projects', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe('BAD_REQUEST');
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it('refuses prototype-pollution keys in the query with 400', async () => {
    for (const q of ['__proto__[isAdmin]=1', 'constructor=x', 'a.prototype=1', '__proto__=1']) {
      const res = await fetch(`${server.url}/api/v1/rgds?${q}`, bearer(goodToken));
      expect(res.status, q).toBe(400);
      expect((await res.json()).code).toBe('BAD_REQUEST');
    }
  });

  it('validates a missing body as empty, naming the required fields', async () => {
    const res = await post('/api/v1/projects', { method: 'POST' });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.details.fields).toEqual({ name: 'is required' });
  });

  it('reports a non-object body at the key "body"', async () => {
    const res = await post('/api/v1/projects', json([1, 2]));
    expect(res.status).toBe(400);
    expect(Object.keys((await res.json()).details.fields)).toEqual(['body']);
  });
});

describe('JSON bodies and text that is not Unicode', () => {
  it('refuses half of a surrogate pair spelled as an escape, in a value or a key, and keeps a whole pair', async () => {
    const { parseJsonBody } = await import('../src/http/safe-json.js');
    expect(parseJsonBody('{"note":"ok \\ud83d\\ude00","\\u00e9":"\\\\ud800 is only spelled"}')).toEqual({ note: 'ok \u{1F600}', é: '\\ud800 is only spelled' });
    for (const body of ['{"note":"x \\ud800"}', '{"note":"\\udc00 y"}', '{"\\ud800":1}', '["\\ude00\\ud83d"]']) {
      expect(() => parseJsonBody(body), body).toThrow(/not valid Unicode/);
    }
  });
});
