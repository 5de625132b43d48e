import { createClient, loginLocal } from '@portico/client';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPorticoServer, type PorticoProcess } from '../packages/client/test/e2e/portico-server.js';

// The examples run as users run them: `node <file>.mjs` in a subprocess, importing the BUILT workspace packages
// (@portico/client and @portico/core resolve to packages/*/dist through node_modules; `npm test` builds first).

const example = (path: string) => fileURLToPath(new URL(path, import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runNode(file: string, args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('examples/sdk/deploy-and-wait.mjs against a real server', () => {
  const script = example('./sdk/deploy-and-wait.mjs');
  let server: PorticoProcess;
  let credentials: Record<string, string>;

  beforeAll(async () => {
    server = await startPorticoServer();
    credentials = { PORTICO_SERVER: server.url, PORTICO_USERNAME: 'admin', PORTICO_PASSWORD: server.adminPassword };
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('deploys an instance, prints its progress and exits 0 once it is Healthy', async () => {
    const run = await runNode(script, ['WebApp', 'example-shop', '{"image":"nginx:1.27","replicas":2}'], credentials);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('created WebApp/example-shop in dev (project default, rgd web-app)');
    expect(lines.some((l) => /^progress \d+\/4 /.test(l))).toBe(true);
    expect(lines).toContain('health Healthy');
    expect(lines.at(-1)).toMatch(/^WebApp\/example-shop in dev is Healthy \(state ACTIVE, /);

    const { token } = await loginLocal(server.url, 'admin', server.adminPassword);
    const instance = await createClient({ baseUrl: server.url, token }).instances.get({ kind: 'WebApp', name: 'example-shop', namespace: 'dev' });
    expect(instance.health).toBe('Healthy');
    expect(instance.spec).toEqual(expect.objectContaining({ image: 'nginx:1.27', replicas: 2 }));
  });

  it('takes a token instead of a password, and exits 1 with the server error when the values are refused', async () => {
    const { token } = await loginLocal(server.url, 'admin', server.adminPassword);
    const run = await runNode(script, ['WebApp', 'no-image', '{"replicas":2}'], { PORTICO_SERVER: server.url, PORTICO_TOKEN: token });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: VALIDATION_FAILED: .*"spec\.image":"is required".*\(request [\w-]+\)\n$/);
  });

  it('exits 2 with its usage when arguments or credentials are missing', async () => {
    const noArgs = await runNode(script, [], credentials);
    expect(noArgs.code).toBe(2);
    expect(noArgs.stderr).toContain('usage: deploy-and-wait.mjs KIND NAME');
    const noCredentials = await runNode(script, ['WebApp', 'x'], { PORTICO_SERVER: server.url });
    expect(noCredentials.code).toBe(2);
    expect(noCredentials.stderr).toContain('PORTICO_TOKEN');
  });
});

describe('examples/embedded/embedded.mjs', () => {
  it('runs Portico in process: lists the catalog, creates an instance, sees it Healthy, stops (exit 0)', async () => {
    const run = await runNode(example('./embedded/embedded.mjs'), [], {});
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^signed in as admin \(role:serveradmin\)\n/);
    const count = Number(/^catalog: (\d+) RGDs$/m.exec(run.stdout)?.[1]);
    expect(count).toBeGreaterThanOrEqual(10);
    expect(run.stdout).toMatch(/^ {2}web-app +WebApp +web$/m);
    expect(run.stdout).toContain('created WebApp/embedded-shop in dev');
    expect(run.stdout).toContain('WebApp/embedded-shop is Healthy');
    const summary = JSON.parse(run.stdout.slice(run.stdout.indexOf('\n{') + 1)) as { health: string; state: string; spec: Record<string, unknown> };
    expect(summary).toEqual(expect.objectContaining({ health: 'Healthy', state: 'ACTIVE' }));
    expect(summary.spec).toEqual(expect.objectContaining({ image: 'ghcr.io/acme/shop:1.4.2', replicas: 2 }));
  });
});
