import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from './hostile/raw-http.js';
import { fakePortico } from './support/fake-portico.js';
import { startServer, type RunningServer } from './support/server.js';

/**
 * HTTP/1.1 allows request targets that do not start with '/': the absolute form a proxy sends
 * (`GET http://host/path`) and the asterisk form (`OPTIONS *`). They must go through the same pipeline as any
 * other request: an envelope, never a 500, with the request id and the security headers of contract §1.
 */
describe('request targets that are not origin-form', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer(fakePortico());
  });
  afterAll(() => server.close());

  for (const [method, target] of [
    ['GET', 'http://example.com/healthz'],
    ['OPTIONS', '*'],
  ] as const) {
    it(`answers ${method} ${target} with the envelope, its request id and the security headers`, async () => {
      const res = await rawRequest(server.port, { method, path: target });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.json).toMatchObject({ code: expect.any(String), message: expect.any(String), details: {} });
      expect(res.headers['x-request-id']).toBeTruthy();
      expect(res.json.requestId).toBe(res.headers['x-request-id']);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    });
  }
});
