import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { startFakePortico, TOKEN } from './fake-portico.js';

// These tests run the BUILT binary, as users do (`npm test` builds first; or `cd packages/cli && npx tsup`).
const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

let portico: Awaited<ReturnType<typeof startFakePortico>>;
let home: string;
let configFile: string;

beforeAll(async () => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: build the CLI first (cd packages/cli && npx tsup)`);
  portico = await startFakePortico();
});
afterAll(async () => {
  await portico?.close();
});
beforeEach(async () => {
  if (home) await rm(home, { recursive: true, force: true });
  home = await mkdtemp(join(tmpdir(), 'portico-cli-bin-'));
  configFile = join(home, 'portico', 'config.yaml');
  portico.requests.length = 0;
});
afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command with pipes, collecting its output; `input` (if any) is written to its stdin. */
function run(command: string, args: string[], opts: { env: Record<string, string>; cwd?: string; input?: string }): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: opts.env, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}

/** Runs `portico …` without a terminal (pipes), with a private config file and no inherited PORTICO_* settings. */
function portico_(args: string[], opts: { input?: string; env?: Record<string, string> } = {}): Promise<Result> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: home, PORTICO_CONFIG: configFile, ...opts.env };
  return run(process.execPath, [bin, ...args], { env, input: opts.input });
}

async function loggedIn(token = TOKEN, expiresAt = '2099-01-01T00:00:00Z', server = portico.url) {
  await mkdir(dirname(configFile), { recursive: true });
  await writeFile(
    configFile,
    YAML.stringify({ currentContext: 'dev', contexts: [{ name: 'dev', server, token, user: 'alice@example.com', expiresAt }] }),
    { mode: 0o600 },
  );
}

describe('portico login', () => {
  it('signs in with --password-stdin and saves the context in a 0600 file', async () => {
    const r = await portico_(['login', portico.url, '--username', 'alice', '--password-stdin', '--context', 'dev'], { input: 'correct horse\n' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Logged in to');
    expect(r.stdout).toContain('alice@example.com');
    expect((await stat(configFile)).mode & 0o777).toBe(0o600);
    const config = YAML.parse(await readFile(configFile, 'utf8'));
    expect(config).toEqual({
      currentContext: 'dev',
      contexts: [{ name: 'dev', server: portico.url, token: TOKEN, user: 'alice@example.com', expiresAt: '2099-01-01T00:00:00Z' }],
    });
    expect(JSON.parse(portico.requests[0].body)).toEqual({ username: 'alice', password: 'correct horse' });
  });

  it('reports a wrong password in one line with exit 3', async () => {
    const r = await portico_(['login', portico.url, '--username', 'alice', '--password-stdin'], { input: 'wrong\n' });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('error: UNAUTHORIZED: invalid username or password (request req-login)\n');
    expect(existsSync(configFile)).toBe(false);
  });

  it('without a terminal, names the missing flag and exits 2 instead of prompting', async () => {
    const noUser = await portico_(['login', portico.url, '--password-stdin'], { input: 'x\n' });
    expect(noUser.code).toBe(2);
    expect(noUser.stderr).toBe('error: missing --username\n');
    const noPassword = await portico_(['login', portico.url, '--username', 'alice']);
    expect(noPassword.code).toBe(2);
    expect(noPassword.stderr).toContain('--password-stdin');
    expect(portico.requests).toHaveLength(0);
  });
});

describe('reading', () => {
  it('rgd list -o json prints every RGD as parseable JSON', async () => {
    await loggedIn();
    const r = await portico_(['rgd', 'list', '-o', 'json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.totalCount).toBe(3);
    expect(doc.items.map((i: { name: string }) => i.name)).toEqual(['postgres', 'redis', 'bucket']);
    expect(portico.requests[0].authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('rgd get shows the values schema as a field table', async () => {
    await loggedIn();
    const r = await portico_(['rgd', 'get', 'postgres']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/PATH\s+TYPE\s+DEFAULT\s+REQUIRED\s+DESCRIPTION/);
    expect(r.stdout).toMatch(/name\s+string\s+yes\s+database name/);
    expect(r.stdout).toMatch(/size\s+integer\s+1\s+no/);
    expect(r.stdout).not.toMatch(/\u001b\[/); // no colours when stdout is not a terminal
  });

  it('--server and PORTICO_TOKEN override the saved context', async () => {
    // The saved context points at a port nothing listens on, with a token the server refuses.
    await loggedIn('saved-token', undefined, 'http://127.0.0.1:9');
    const r = await portico_(['rgd', 'list', '-o', 'yaml', '--server', portico.url], { env: { PORTICO_TOKEN: TOKEN } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(YAML.parse(r.stdout).totalCount).toBe(3);
    expect(portico.requests.map((q) => q.authorization)).toEqual([`Bearer ${TOKEN}`]);
  });

  it('context list never prints tokens', async () => {
    await loggedIn();
    const r = await portico_(['context', 'list', '-o', 'json']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(TOKEN);
    expect(JSON.parse(r.stdout).contexts[0]).toMatchObject({ name: 'dev', current: true, loggedIn: true });
  });
});

describe('exit codes', () => {
  it('can-i prints yes with exit 0 and no with exit 1', async () => {
    await loggedIn();
    const yes = await portico_(['can-i', 'create', 'instances', 'alpha']);
    expect([yes.code, yes.stdout]).toEqual([0, 'yes\n']);
    const no = await portico_(['can-i', 'delete', 'projects', 'alpha']);
    expect([no.code, no.stdout]).toEqual([1, 'no\n']);
    expect(no.stderr).toBe('');
  });

  it('a 403 exits 3 with the server code and request id on one line', async () => {
    await loggedIn();
    const r = await portico_(['project', 'get', 'secret']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('error: FORBIDDEN: permission denied (request abc123)\n');
  });

  it('a not-found exits 1', async () => {
    await loggedIn();
    const r = await portico_(['rgd', 'get', 'nothing-here']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: NOT_FOUND: /);
  });

  it('an expired session exits 3 before sending anything', async () => {
    await loggedIn(TOKEN, '2000-01-01T00:00:00Z');
    const r = await portico_(['rgd', 'list']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('error: session expired, run portico login\n');
    expect(portico.requests).toHaveLength(0);
  });

  it('a 401 on a saved token means the session expired', async () => {
    await loggedIn('revoked');
    const r = await portico_(['account', 'info']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('error: session expired, run portico login\n');
  });

  it('usage errors exit 2', async () => {
    await loggedIn();
    expect((await portico_(['rgd', 'list', '-o', 'xml'])).code).toBe(2);
    expect((await portico_(['no-such-command'])).code).toBe(2);
    expect((await portico_(['can-i', 'fly', 'instances'])).code).toBe(2);
  });
});

describe('project role change', () => {
  it('unbinds first, and when the bind fails says clearly that the old binding is gone', async () => {
    await loggedIn();
    const r = await portico_(['project', 'role', 'change', 'alpha', '--user', 'bob', '--from', 'developer', '--to', 'auditor']);
    expect(r.code).toBe(4);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('BAD_REQUEST: role "auditor" is not defined in project "alpha"');
    expect(r.stderr).toContain('the old binding to role "developer" WAS removed');
    expect(r.stderr).toContain('portico project role bind alpha developer --user bob');
    expect(portico.requests.map((q) => `${q.method} ${q.url}`)).toEqual([
      'DELETE /api/v1/projects/alpha/roles/developer/users/bob',
      'POST /api/v1/projects/alpha/roles/auditor/users/bob',
    ]);
  });
});

describe('instance create', () => {
  it('without a terminal, a missing project is a usage error naming the flag', async () => {
    await loggedIn();
    const r = await portico_(['instance', 'create', 'Postgres', 'db', '-n', 'alpha-dev']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: missing -p, --project\n');
  });

  it('names required values that were not set', async () => {
    await loggedIn();
    const r = await portico_(['instance', 'create', 'Postgres', 'db', '-p', 'alpha', '-n', 'alpha-dev', '--set', 'size=2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('missing required value name');
    expect(r.stderr).toContain('--set name=');
  });

  it('sends typed --set values on the namespaced path', async () => {
    await loggedIn();
    const r = await portico_(['instance', 'create', 'Postgres', 'db', '-p', 'alpha', '-n', 'alpha-dev', '--set', 'name=app', '--set', 'size=3', '--set-string', 'tag=007']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const post = portico.requests.find((q) => q.method === 'POST' && q.url.includes('/instances/'));
    expect(JSON.parse(post!.body)).toEqual({ name: 'db', project: 'alpha', values: { name: 'app', size: 3, tag: '007' } });
  });

  it('--wait prints progress lines and exits 0 once Healthy', async () => {
    await loggedIn();
    const r = await portico_(['instance', 'create', 'Postgres', 'db2', '-p', 'alpha', '-n', 'alpha-dev', '--set', 'name=app', '--wait']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('1/2 [##########----------]');
    expect(r.stdout).toContain('2/2');
    expect(r.stdout).toMatch(/Postgres\/db2 is Healthy\n$/);
  });

  it('--wait exits 4 when the instance turns Unhealthy', async () => {
    await loggedIn();
    const r = await portico_(['instance', 'create', 'Postgres', 'broken', '-p', 'alpha', '-n', 'alpha-dev', '--set', 'name=app', '--wait']);
    expect(r.code).toBe(4);
    expect(r.stderr).toBe('error: Postgres/broken in alpha-dev is Unhealthy: volume cannot be provisioned\n');
  });
});

describe('npx portico', () => {
  /** Runs `npx --no-install portico …` from the repository root, as a newcomer does right after `npm ci`. */
  function npx(args: string[]): Promise<Result> {
    // No update check: it would ask the registry and print its notice on stderr.
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: home, PORTICO_CONFIG: configFile, npm_config_update_notifier: 'false' };
    return run('npx', ['--no-install', 'portico', ...args], { env, cwd: repoRoot });
  }

  it('runs the workspace CLI from the repository root without installing anything', async () => {
    const { version } = JSON.parse(await readFile(fileURLToPath(new URL('../package.json', import.meta.url)), 'utf8')) as { version: string };
    const v = await npx(['--version']);
    expect(v.stderr).toBe('');
    expect([v.code, v.stdout]).toEqual([0, `${version}\n`]);
    const help = await npx(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: portico \[options\] \[command\]\n/);
    expect(help.stdout).toContain('login [options] [server]');
  });
});
