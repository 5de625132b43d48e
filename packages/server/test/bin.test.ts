import { spawn } from 'node:child_process';
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

describe('portico-server bin', () => {
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
