import { describe, expect, it } from 'vitest';
import { fakePortico } from './support/fake-portico.js';
import { startServer } from './support/server.js';

describe('readiness answers', () => {
  it('tells a client when to ask again when /readyz answers 503 (contract §1: Retry-After on 503)', async () => {
    const down = fakePortico({
      overrides: { readiness: async () => ({ status: 'unavailable', components: { cluster: { ok: false, message: 'unreachable' } } }) },
    });
    const server = await startServer(down);
    try {
      const res = await fetch(`${server.url}/readyz`);
      expect(res.status).toBe(503);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  it('sends no Retry-After when ready', async () => {
    const server = await startServer(fakePortico());
    try {
      const res = await fetch(`${server.url}/readyz`);
      expect(res.status).toBe(200);
      expect(res.headers.get('retry-after')).toBeNull();
    } finally {
      await server.close();
    }
  });
});
