import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Issue 16, acceptance 1: a newcomer's first minutes, as the README tells them. The current checkout is cloned
 * into an empty directory, installed with `npm ci`, started with the README's first command, and the README's
 * tour is run as written, commands taken from README.md itself so the test breaks when the README drifts. The
 * one liberty: `localhost:8080` becomes a free port, so the test never collides with a server already running.
 */

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');

/** The ```sh blocks of the README, in order. */
const shellBlocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
const withoutComment = (line: string) => line.replace(/\s+#.*$/, '').trim();

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** curl prints each answer without a newline: split the concatenated JSON objects at their top-level ends. */
function jsonValues(text: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let inString = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && --depth === 0) {
      values.push(JSON.parse(text.slice(start, i + 1)));
      start = i + 1;
    }
  }
  expect(text.slice(start).trim()).toBe('');
  return values;
}

describe('the README, verbatim, on a fresh clone', () => {
  let clone: string;
  let server: ChildProcess | undefined;
  let output = '';
  let port: number;
  const eeSchema = `readme_ee_${process.pid}`;
  const env = (listenPort = port) => ({ ...process.env, SERVER_ADDRESS: `127.0.0.1:${listenPort}`, LOG_LEVEL: 'info', npm_config_audit: 'false', npm_config_fund: 'false' });

  /** Runs `command` in the clone until /healthz on `listenPort` answers; the process and its output. */
  const launch = async (command: string, listenPort: number, extraEnv: Record<string, string> = {}) => {
    const started = Date.now();
    const child = spawn('bash', ['-c', command], { cwd: clone, env: { ...env(listenPort), ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const run = { child, output: '', seconds: 0 };
    child.stdout!.on('data', (c: Buffer) => (run.output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (run.output += c.toString()));
    for (;;) {
      const up = await fetch(`http://127.0.0.1:${listenPort}/healthz`).then((r) => r.ok, () => false);
      if (up) {
        run.seconds = (Date.now() - started) / 1000;
        return run;
      }
      if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${run.output}`);
      if (Date.now() - started > 480_000) throw new Error(`the server did not answer within 8 minutes:\n${run.output}`);
      await sleep(200);
    }
  };

  const stop = async (child: ChildProcess | undefined) => {
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    process.kill(-child.pid!, 'SIGTERM'); // the whole group: bash, npm and the server
    await exited;
  };

  const startServer = async (command: string) => {
    output = '';
    const run = await launch(command, port);
    server = run.child;
    run.child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    run.child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    output = run.output;
    return run.seconds;
  };

  const stopServer = () => stop(server);
  let enterprise: ChildProcess | undefined;

  beforeAll(async () => {
    clone = mkdtempSync(path.join(tmpdir(), 'portico-readme-'));
    port = await freePort();
    const cloned = spawnSync('git', ['clone', '--quiet', '--no-hardlinks', repoRoot, clone], { encoding: 'utf8' });
    if (cloned.status !== 0) throw new Error(`git clone failed: ${cloned.stderr}`);
  }, 120_000);

  // Removing the clone's node_modules takes a while on a busy machine.
  afterAll(async () => {
    await stopServer().catch(() => undefined);
    await stop(enterprise).catch(() => undefined);
    spawnSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-d', 'test', '-qc', `DROP SCHEMA IF EXISTS ${eeSchema} CASCADE`]);
    rmSync(clone, { recursive: true, force: true });
  }, 240_000);

  it('starts with the two set-up commands: start the server, run the tests', () => {
    const [setUp] = shellBlocks;
    expect(readme.trimStart().split('\n').slice(0, 2)).toEqual(['# Portico', '']);
    expect(readme.indexOf('```sh')).toBeLessThan(readme.indexOf('\n## '));
    expect(setUp.trim().split('\n').map(withoutComment)).toEqual(['npm ci && npm start', 'npm test']);
  });

  it('npm ci && npm start on a taken port says what to do; once the port is free it serves the sample catalog and shows the admin password; the tour then works as written', async () => {
    const startCommand = withoutComment(shellBlocks[0].split('\n')[0]);
    // npm ci from the local cache when it has the packages (CI ran npm ci just before), from the registry otherwise.
    const command = startCommand.replace('npm ci', 'npm ci --prefer-offline');

    // First, the port is taken by another program: one line says so and what to do, nothing is lost.
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    const busy = spawnSync('bash', ['-c', command], { cwd: clone, env: env(), encoding: 'utf8', timeout: 480_000 });
    await new Promise((resolve) => blocker.close(resolve));
    expect(busy.status).not.toBe(0);
    expect(busy.stderr).toContain(`127.0.0.1:${port} is already in use (SERVER_ADDRESS): stop what listens there, or start with another address, e.g. SERVER_ADDRESS=127.0.0.1:${port + 1}`);
    // A fresh clone has nothing built: the packages the server runs are compiled, JavaScript only.
    expect(busy.stdout.match(/building @portico\/\w+/g)).toEqual(['building @portico/api', 'building @portico/core', 'building @portico/server']);
    // The password it generated is not shown by a server that never listened: the next start shows it.
    expect(busy.stdout + busy.stderr).not.toContain('PORTICO_PASSWORD');

    await startServer(command);
    const exported = /^│\s+(export PORTICO_PASSWORD='[^']+')\s+│$/m.exec(output)?.[1];
    expect(exported, `the password box in:\n${output}`).toBeDefined();

    const tour = shellBlocks.find((block) => block.includes('PORTICO_PASSWORD'))!;
    expect(tour).toContain('localhost:8080');
    const script = `set -euo pipefail\n${exported}\n${tour.replaceAll('localhost:8080', `localhost:${port}`)}`;
    const run = spawnSync('bash', ['-c', script], { cwd: clone, env: env(), encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);

    // Three JSON answers, one per curl after the sign-in: the catalog, the filtered list, one RGD.
    const answers = jsonValues(run.stdout) as any[];
    expect(answers).toHaveLength(3);
    const [catalog, filtered, one] = answers;
    expect(catalog.items.length).toBeGreaterThanOrEqual(5);
    expect(filtered.items.map((r: { name: string }) => r.name)).toEqual(['postgres-database']);
    expect(one).toMatchObject({ name: 'postgres-database', schema: expect.any(Object) });
  }, 600_000);

  it('a second npm start builds nothing, keeps the password and shows no new one', async () => {
    await stopServer();
    const seconds = await startServer('npm start');
    // The number the issue asks for (under 10 s on an idle machine) is measured, not asserted: CI machines vary.
    process.stdout.write(`second npm start ready in ${seconds.toFixed(1)} s\n`);
    expect(output).not.toContain('PORTICO_PASSWORD');
    expect(output).not.toContain('portico: building');
  }, 600_000);

  it('npm run start:enterprise, as the README gives it, serves every Enterprise feature next to the running OSS server, and trusts the example key without a restart', async () => {
    const block = shellBlocks.find((b) => b.includes('start:enterprise'))!;
    const command = withoutComment(block.trim().split('\n')[0]);
    expect(command).toBe('npm run start:enterprise');
    const eePort = await freePort();
    // The OSS server of the previous case still runs on its own data dir.
    expect(await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status)).toBe(200);
    const first = await launch(command, eePort, { PORTICO_DB_SCHEMA: eeSchema });
    enterprise = first.child;
    // Incremental: the OSS start built api, core and server; only the Enterprise package is compiled.
    expect(first.output.match(/building @portico\/\w+/g)).toEqual(['building @portico/enterprise']);
    // Its own data dir: a password of its own, while the OSS admin's is kept in .portico.
    const password = /^│\s+export PORTICO_PASSWORD='([^']+)'\s+│$/m.exec(first.output)?.[1];
    expect(password, `the password box in:\n${first.output}`).toBeDefined();
    const base = `http://127.0.0.1:${eePort}/api/v1`;
    const login = await fetch(`${base}/auth/local/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password }) });
    expect(login.status).toBe(200);
    const auth = { authorization: `Bearer ${((await login.json()) as { token: string }).token}` };
    const license = await (await fetch(`${base}/license`, { headers: auth })).json();
    expect(license).toMatchObject({ status: 'valid', license: { features: expect.arrayContaining(['audit', 'compliance', 'categories', 'views']) } });
    expect((await fetch(`${base}/categories`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${base}/audit/events`, { headers: auth })).status).toBe(200);
    // A license from the example issuer installs at once: the development start trusts its key.
    const token = spawnSync(process.execPath, ['examples/enterprise/issue-license.mjs', '--customer', 'readme', '--features', 'audit'], { cwd: clone, encoding: 'utf8' }).stdout.trim();
    const applied = await fetch(`${base}/license`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
    expect(applied.status).toBe(200);
    expect(await applied.json()).toMatchObject({ status: 'valid', license: { customer: 'readme', features: ['audit'] } });

    await stop(enterprise);
    const second = await launch(command, eePort, { PORTICO_DB_SCHEMA: eeSchema });
    enterprise = second.child;
    process.stdout.write(`second npm run start:enterprise ready in ${second.seconds.toFixed(1)} s\n`);
    expect(second.output).not.toContain('portico: building');
    expect(second.output).not.toContain('PORTICO_PASSWORD');
  }, 600_000);
});
