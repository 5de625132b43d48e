import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { fakePortico } from './support/fake-portico.js';
import { startServer } from './support/server.js';

describe('server lifecycle', () => {
  it('finishes in-flight requests on close, closes the upgrade hook, then refuses connections', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const portico = fakePortico({
      overrides: {
        readiness: async () => {
          await gate;
          return { status: 'ok', components: {} };
        },
      },
    });
    let attachedTo: http.Server | undefined;
    let upgradeClosed = false;
    const server = await startServer(portico, {
      upgrade: (s) => {
        attachedTo = s;
        return { close: async () => void (upgradeClosed = true) };
      },
    });
    expect(attachedTo).toBeDefined();

    const inFlight = fetch(`${server.url}/readyz`);
    await new Promise((r) => setTimeout(r, 50)); // the request has reached the handler
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(closed).toBe(false);

    release();
    const res = await inFlight;
    expect(res.status).toBe(200);
    await closing;
    expect(upgradeClosed).toBe(true);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });

  it('cuts off requests still running after the shutdown timeout', async () => {
    const portico = fakePortico({
      config: { shutdownTimeoutMs: 100 },
      overrides: { readiness: () => new Promise(() => {}) },
    });
    const server = await startServer(portico);
    const hanging = fetch(`${server.url}/readyz`).then(
      () => 'answered',
      () => 'cut off',
    );
    await new Promise((r) => setTimeout(r, 50));
    await server.close();
    expect(await hanging).toBe('cut off');
  });
});
