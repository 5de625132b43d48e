import { createClient, loginLocal, type PorticoClient } from '@portico/client';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPorticoServer, type PorticoProcess } from '../../../client/test/e2e/portico-server.js';
import { assertCliBuilt, cliBin, runCli, type CliUser } from './run-cli.js';

// kubectl's and argocd's list flags on `portico`: `-l, --selector` (filtered by the server, and on a watch's
// events), `-A, --all-projects` (a PROJECT column; refused with `-p`) and `--no-headers`. The BUILT binary
// against the REAL server, with instances, Secrets and tokens in two projects (default and payments).
const spawnHeavy = { timeout: 120_000 };

let server: PorticoProcess;
let root: string;
let admin: CliUser;
let lee: CliUser;
let sdk: PorticoClient;

const json = <T = any>(text: string) => JSON.parse(text) as T;
const ok = async (user: CliUser, args: string[], input?: string) => {
  const res = await runCli(user, args, { input });
  if (res.code !== 0) throw new Error(`portico ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
  return res.stdout;
};
const lines = (text: string) => text.trimEnd().split('\n');
const cells = (line: string) => line.trim().split(/\s{2,}/);
/** A table's cells line by line, its AGE cells (which move on between two runs) made equal. */
const rows = (text: string) => lines(text).map((l) => cells(l).map((c) => (/^\d+[smhd]$/.test(c) ? '<age>' : c)));

beforeAll(async () => {
  assertCliBuilt();
  server = await startPorticoServer();
  root = await mkdtemp(join(tmpdir(), 'portico-cli-list-flags-'));
  admin = { home: join(root, 'admin'), configFile: join(root, 'admin', 'portico', 'config.yaml') };
  lee = { home: join(root, 'lee'), configFile: join(root, 'lee', 'portico', 'config.yaml') };
  sdk = createClient({ baseUrl: server.url, token: (await loginLocal(server.url, 'admin', server.adminPassword)).token });
  await ok(admin, ['login', server.url, '--username', 'admin', '--password-stdin'], server.adminPassword);

  const webApp = { kind: 'WebApp', values: { image: 'ghcr.io/acme/shop:1' } };
  await sdk.instances.create({ ...webApp, name: 'shop', project: 'default', namespace: 'dev' });
  await sdk.instances.create({ ...webApp, name: 'blog', project: 'default', namespace: 'dev' });
  await sdk.instances.create({ kind: 'RedisCache', name: 'cache', project: 'default', namespace: 'dev', values: {} });
  await sdk.instances.create({ ...webApp, name: 'pay', project: 'payments', namespace: 'payments-dev' });
  await sdk.secrets.create('default', { name: 'db-creds', namespace: 'dev', data: { password: 'p' } });
  await sdk.secrets.create('payments', { name: 'card-keys', namespace: 'payments-dev', data: { key: 'k' } });

  // lee manages the payments project (its tokens among them) and only deploys in default (no tokens there).
  await sdk.accounts.create({ username: 'lee', password: 'lee-password-1', groups: [] });
  await sdk.projects.bindUser('payments', 'platform-admin', 'lee');
  await sdk.projects.bindUser('default', 'developer', 'lee');
  await sdk.projects.tokens.create('payments', 'developer', { description: 'payments ci' });
  await sdk.projects.tokens.create('default', 'viewer', { description: 'default dashboards' });
  await ok(lee, ['login', server.url, '--username', 'lee', '--password-stdin'], 'lee-password-1');
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('-l, --selector', spawnHeavy, () => {
  it('instance list -l lists only the instances whose labels match, across projects', async () => {
    expect(await ok(admin, ['instance', 'list', '-l', 'portico.dev/rgd=web-app', '-o', 'name'])).toBe('WebApp/blog\nWebApp/pay\nWebApp/shop\n');
    expect(await ok(admin, ['instance', 'list', '-l', 'portico.dev/rgd notin (web-app)', '-o', 'name'])).toBe('RedisCache/cache\n');
    expect(await ok(admin, ['instance', 'list', '-p', 'default', '-l', 'portico.dev/rgd in (web-app, redis-cache),portico.dev/deployment-mode=direct', '-o', 'name'])).toBe(
      'WebApp/blog\nRedisCache/cache\nWebApp/shop\n',
    );
    const listed = json<{ items: { name: string }[]; totalCount: number }>(await ok(admin, ['instance', 'list', '-l', '!portico.dev/project', '-o', 'json']));
    expect(listed).toEqual({ items: [], totalCount: 0 });
  });

  it('rgd list -l lists only the RGDs whose labels match', async () => {
    expect(await ok(admin, ['rgd', 'list', '-l', 'portico.dev/project', '-o', 'name'])).toBe('rgd/payment-gateway\n');
    const rest = lines(await ok(admin, ['rgd', 'list', '-l', '!portico.dev/project', '-o', 'name']));
    expect(rest).toContain('rgd/web-app');
    expect(rest).not.toContain('rgd/payment-gateway');
  });

  it('a selector that does not parse is a usage error (exit 2) saying what is wrong, before any request', async () => {
    const bad = await runCli(admin, ['instance', 'list', '-l', 'tier in gold']);
    expect([bad.code, bad.stdout, bad.stderr]).toEqual([2, '', 'error: -l, --selector: "tier in gold": expected "(" after "in"\n']);
    const badKey = await runCli(admin, ['rgd', 'list', '--selector', 'team=a,-x']);
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toContain('error: -l, --selector: "-x": label key "-x": the name must be');
  });

  it('instance list -w -l --no-headers prints the matching rows, then only the changes that match, without headers', async () => {
    const child = spawn(process.execPath, [cliBin, 'instance', 'list', '-w', '-p', 'default', '-l', 'portico.dev/rgd=redis-cache', '--no-headers'], {
      env: { PATH: process.env.PATH ?? '', HOME: admin.home, PORTICO_CONFIG: admin.configFile },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const until = async (pattern: RegExp) => {
      for (const deadline = Date.now() + 30_000; !pattern.test(out); ) {
        if (Date.now() > deadline) throw new Error(`never printed ${pattern}; got:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await until(/^cache\s+dev\s+RedisCache\s+default\s/m);
    // The subscription opens after the list is printed.
    await new Promise((r) => setTimeout(r, 1000));
    // A WebApp's changes (created, then progressing to Healthy) do not match the selector; a cache's do.
    await sdk.instances.create({ kind: 'WebApp', name: 'ignored', project: 'default', namespace: 'dev', values: { image: 'ghcr.io/acme/i:1' } });
    await sdk.waitFor({ kind: 'WebApp', name: 'ignored', namespace: 'dev' }, 'Healthy', { timeoutMs: 30_000 });
    await sdk.instances.create({ kind: 'RedisCache', name: 'cache-two', project: 'default', namespace: 'dev', values: {} });
    await until(/^cache-two\s+dev\s+RedisCache\s+default\s/m);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(out).not.toContain('ignored');
    expect(out).not.toMatch(/NAME\s+NAMESPACE/);
  });
});

describe('-A, --all-projects', spawnHeavy, () => {
  it('secret list -A lists every project\'s Secrets with a PROJECT column; -o json names the project of each', async () => {
    const table = lines(await ok(admin, ['secret', 'list', '-A']));
    expect(cells(table[0])).toEqual(['PROJECT', 'NAMESPACE', 'NAME', 'TYPE', 'KEYS', 'AGE']);
    expect(table.slice(1).map((l) => cells(l).slice(0, 3))).toEqual([
      ['default', 'dev', 'db-creds'],
      ['payments', 'payments-dev', 'card-keys'],
    ]);
    const listed = json<{ items: { project: string; name: string }[]; totalCount: number }>(await ok(admin, ['secret', 'list', '-A', '-o', 'json']));
    expect(listed.items.map((s) => `${s.project}/${s.name}`)).toEqual(['default/db-creds', 'payments/card-keys']);
    expect(listed.totalCount).toBe(2);
    // One project, as before: no PROJECT column.
    expect(cells(lines(await ok(admin, ['secret', 'list', '-p', 'payments']))[0])[0]).toBe('NAMESPACE');
  });

  it('instance list -A and repo list -A are the lists without -p, which already show PROJECT', async () => {
    const all = await ok(admin, ['instance', 'list', '-A']);
    expect(rows(all)).toEqual(rows(await ok(admin, ['instance', 'list'])));
    expect(cells(lines(all)[0])).toContain('PROJECT');
    expect(lines(all).filter((l) => cells(l)[0] === 'pay').map((l) => cells(l)[3])).toEqual(['payments']);
    expect(await ok(admin, ['repo', 'list', '-A'])).toBe(await ok(admin, ['repo', 'list']));
  });

  it('project token list -A lists the tokens of every role the caller may manage, with PROJECT and ROLE; other projects are left out', async () => {
    const table = lines(await ok(lee, ['project', 'token', 'list', '-A']));
    expect(cells(table[0]).slice(0, 4)).toEqual(['PROJECT', 'ROLE', 'ID', 'DESCRIPTION']);
    expect(table.slice(1).map((l) => [cells(l)[0], cells(l)[1], cells(l)[3]])).toEqual([['payments', 'developer', 'payments ci']]);
    // The admin manages both projects' tokens.
    const both = json<{ items: { project: string; role: string; description: string }[] }>(await ok(admin, ['project', 'token', 'list', '-A', '-o', 'json']));
    expect(both.items.map((t) => `${t.project}/${t.role}: ${t.description}`)).toEqual(['default/viewer: default dashboards', 'payments/developer: payments ci']);
  });

  it('project role bindings -A lists every project\'s bindings with a PROJECT column', async () => {
    const table = lines(await ok(admin, ['project', 'role', 'bindings', '-A']));
    expect(cells(table[0])).toEqual(['PROJECT', 'ROLE', 'TYPE', 'SUBJECT']);
    expect(table.slice(1).map(cells)).toEqual(expect.arrayContaining([['default', 'developer', 'user', 'lee'], ['payments', 'platform-admin', 'user', 'lee']]));
  });

  it('-A with -p, or with a PROJECT argument, is a usage error (exit 2) saying they conflict', async () => {
    for (const args of [['instance', 'list'], ['secret', 'list'], ['repo', 'list'], ['compliance', 'violations']]) {
      const res = await runCli(admin, [...args, '-A', '-p', 'default']);
      expect([args.join(' '), res.code, res.stdout, res.stderr]).toEqual([args.join(' '), 2, '', "error: option '-A, --all-projects' cannot be used with option '-p, --project <project>'\n"]);
    }
    for (const args of [['project', 'token', 'list', 'default'], ['project', 'role', 'bindings', 'default']]) {
      const res = await runCli(admin, [...args, '--all-projects']);
      expect([args.join(' '), res.code, res.stderr]).toEqual([args.join(' '), 2, "error: option '-A, --all-projects' cannot be used with the PROJECT argument\n"]);
    }
  });
});

describe('--no-headers', spawnHeavy, () => {
  it('prints the table rows without the header line, in table and wide output', async () => {
    for (const args of [['instance', 'list', '-l', 'portico.dev/rgd=web-app'], ['instance', 'list', '-o', 'wide'], ['secret', 'list', '-A'], ['rgd', 'list'], ['project', 'list']]) {
      const headed = rows(await ok(admin, args));
      expect(rows(await ok(admin, [...args, '--no-headers']))).toEqual(headed.slice(1));
    }
    expect(lines(await ok(admin, ['instance', 'list', '-l', 'portico.dev/rgd=web-app', '--no-headers'])).map((l) => cells(l)[0])).toEqual(['blog', 'ignored', 'pay', 'shop']);
  });

  it('is ignored by -o json, yaml and name', async () => {
    for (const format of ['json', 'yaml', 'name']) {
      expect(await ok(admin, ['project', 'list', '-o', format, '--no-headers'])).toBe(await ok(admin, ['project', 'list', '-o', format]));
    }
  });
});
