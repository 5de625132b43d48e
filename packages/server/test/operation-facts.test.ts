import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, createPortico, loadConfig, type Operation, type OperationHook, type Portico } from '@portico/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { login, sampleCatalog } from './support/portico.js';
import { startServer, type RunningServer } from './support/server.js';

// The server hands each operation route's request facts to core's operation hooks. A Portico without hooks has
// nobody to hand them to, so its requests open no request scope: an AsyncLocalStorage scope, once opened in a
// process, makes every promise and every tick of every later request dearer, reads included.

interface Started {
  portico: Portico;
  server: RunningServer;
  adminPassword: string;
  close(): Promise<void>;
}

const started: Started[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const s of started.splice(0)) await s.close();
});

async function start(hooks: readonly OperationHook[] | undefined): Promise<Started> {
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-facts-'));
  const adminPassword = `admin-${randomUUID()}`;
  const config = loadConfig({
    PORTICO_PROFILE: 'development', PORTICO_DATA_DIR: dataDir, PORTICO_MANIFESTS: sampleCatalog, ADMIN_PASSWORD: adminPassword,
    PORTICO_KRO_STEP_MS: '10', PORTICO_RATE_LIMITS: '0', PORTICO_KV: 'memory',
  });
  const portico = await createPortico({ config, logger: createLogger('silent'), hooks });
  const server = await startServer(portico);
  const close = async () => {
    await server.close();
    await portico.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  const s = { portico, server, adminPassword, close };
  started.push(s);
  return s;
}

/** Creates an account over HTTP as the admin, with this request id and user agent; answers the status. */
async function createAccount(s: Started, token: string, username: string): Promise<number> {
  const res = await fetch(`${s.server.url}/api/v1/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-request-id': `facts-${username}`, 'user-agent': 'facts-test/1' },
    body: JSON.stringify({ username, password: `pw-${randomUUID()}`, groups: [] }),
  });
  await res.arrayBuffer();
  return res.status;
}

describe('the request facts of an operation route', () => {
  it('reach an operation hook: the route, the request id, the client address, the user agent and the success status', async () => {
    const seen: Operation[] = [];
    const s = await start([(operation, run) => (seen.push(operation), run())]);
    const token = await login(s.server.url, 'admin', s.adminPassword);
    expect(await createAccount(s, token, 'fay')).toBe(201);

    const created = seen.find((o) => o.id === 'accounts.create');
    expect(created?.name).toBe('fay');
    expect(created?.request).toEqual({ routeId: 'createAccount', requestId: 'facts-fay', sourceIP: '127.0.0.1', userAgent: 'facts-test/1', successStatus: 201 });
  });

  it('open no request scope on a Portico without hooks, so reads after a write pay nothing for one', async () => {
    const s = await start(undefined);
    const scopes = vi.spyOn(AsyncLocalStorage.prototype, 'run');
    const token = await login(s.server.url, 'admin', s.adminPassword);
    expect(await createAccount(s, token, 'gil')).toBe(201);
    const read = await fetch(`${s.server.url}/api/v1/account/can-i/projects/create/*`, { headers: { authorization: `Bearer ${token}` } });
    expect(await read.json()).toEqual({ value: 'yes' });
    expect(scopes).not.toHaveBeenCalled();
  });
});
