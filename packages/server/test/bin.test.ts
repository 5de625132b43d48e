import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The built bin, as `npm start` runs it (`npm test` builds first). */
const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const catalog = fileURLToPath(new URL('../../../examples/catalog', import.meta.url));

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, [bin], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

async function waitFor<T>(probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A TCP listener on a free port of 127.0.0.1, standing for another program on the port Portico wants. */
async function busyPort(): Promise<{ port: number; close(): Promise<void> }> {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  return { port: (blocker.address() as AddressInfo).port, close: () => new Promise((resolve) => blocker.close(() => resolve())) };
}

describe('portico-server bin', () => {
  it('on a busy port: one line naming the port and SERVER_ADDRESS, exit 1, no stack trace; the generated password is shown by the next start that listens, until the admin signs in', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'portico-bin-busy-'));
    const busy = await busyPort();
    const env = { PORTICO_PROFILE: 'development', PORTICO_DATA_DIR: dataDir, PORTICO_MANIFESTS: catalog, LOG_LEVEL: 'info' };
    try {
      const refused = run({ ...env, SERVER_ADDRESS: `127.0.0.1:${busy.port}` });
      expect(await refused.exited).toBe(1);
      expect(refused.err()).toBe(
        `portico-server: failed to start: 127.0.0.1:${busy.port} is already in use (SERVER_ADDRESS): stop what listens there, or start with another address, e.g. SERVER_ADDRESS=127.0.0.1:${busy.port + 1}\n`,
      );
      expect(refused.out()).not.toContain('PORTICO_PASSWORD');

      const started = run({ ...env, SERVER_ADDRESS: '127.0.0.1:0' });
      const url = await waitFor(() => /Portico listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(started.out())?.[1]);
      const password = await waitFor(() => /export PORTICO_PASSWORD='([^']+)'/.exec(started.out())?.[1]);
      const login = await fetch(`${url}/api/v1/auth/local/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password }) });
      expect(login.status).toBe(200);
      started.child.kill('SIGTERM');
      expect(await started.exited).toBe(0);

      const after = run({ ...env, SERVER_ADDRESS: '127.0.0.1:0' });
      await waitFor(() => /Portico listening on/.exec(after.out())?.[0]);
      await new Promise((r) => setTimeout(r, 300));
      expect(after.out()).not.toContain('PORTICO_PASSWORD');
      after.child.kill('SIGTERM');
      expect(await after.exited).toBe(0);
    } finally {
      await busy.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('refuses PORT set without SERVER_ADDRESS, naming the variable to use', async () => {
    const p = run({ PORT: '3000' });
    expect(await p.exited).toBe(1);
    expect(p.err()).toBe('portico-server: PORT=3000 is not read by Portico: its listen address is SERVER_ADDRESS (default :8080), so start with SERVER_ADDRESS=:3000\n');
  });

  it('without any kubeconfig, says so and how to get one, instead of talking about plain HTTP', async () => {
    const home = await mkdtemp(join(tmpdir(), 'portico-home-'));
    try {
      const none = run({ HOME: home, SERVER_ADDRESS: '127.0.0.1:0' });
      expect(await none.exited).toBe(1);
      expect(none.err()).toBe(
        `portico-server: failed to start: invalid Kubernetes configuration: no kubeconfig found: KUBECONFIG is not set and ${home}/.kube/config does not exist; point KUBECONFIG at a kubeconfig file, set KUBERNETES_IN_CLUSTER=true inside a pod, or start on the embedded cluster with PORTICO_CLUSTER=embedded\n`,
      );
      const wrong = run({ HOME: home, KUBECONFIG: `${home}/nope.yaml`, SERVER_ADDRESS: '127.0.0.1:0' });
      expect(await wrong.exited).toBe(1);
      expect(wrong.err()).toMatch(new RegExp(`^portico-server: failed to start: invalid Kubernetes configuration: KUBECONFIG names ${home}/nope.yaml, which does not exist; point KUBECONFIG at`));
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('refuses a bad variable with one line naming it, exit 1', async () => {
    const p = run({ SERVER_ADDRESS: 'not an address' });
    expect(await p.exited).toBe(1);
    expect(p.err()).toMatch(/^portico-server: .*SERVER_ADDRESS/);
  });

  it('starts, serves, and shuts down cleanly on SIGTERM', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'portico-bin-'));
    const p = run({
      PORTICO_PROFILE: 'development',
      SERVER_ADDRESS: '127.0.0.1:0',
      PORTICO_DATA_DIR: dataDir,
      PORTICO_MANIFESTS: catalog,
      ADMIN_PASSWORD: 'bin-test-password',
      LOG_LEVEL: 'info',
    });
    try {
      const url = await waitFor(() => /Portico listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(p.out())?.[1]);
      expect(p.out()).toContain('/swagger/');
      const res = await fetch(`${url}/healthz`);
      expect(await res.json()).toEqual({ status: 'ok' });
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
      expect(p.out()).toContain('stopped');
    } finally {
      p.child.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
