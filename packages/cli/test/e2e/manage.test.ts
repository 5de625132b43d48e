import { createClient, loginLocal, type PorticoClient } from '@portico/client';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import pkg from '../../package.json' with { type: 'json' };
import { startPorticoServer, type PorticoProcess } from '../../../client/test/e2e/portico-server.js';
import { assertCliBuilt, cliBin, runCli, type CliUser } from './run-cli.js';

// The commands that manage things (accounts, contexts, projects, roles, instance specs), the output formats,
// watches, name completion and `version`: the BUILT binary against the REAL server. Tests run in order. Each
// test spawns the CLI a dozen times or more, so they get more time than the default on a loaded machine.
const spawnHeavy = { timeout: 120_000 };

let server: PorticoProcess;
let root: string;
let ops: CliUser;
let sdk: PorticoClient;
let host: string;

const json = <T = Record<string, unknown>>(text: string) => JSON.parse(text) as T;
const ok = async (user: CliUser, args: string[], input?: string) => {
  const res = await runCli(user, args, { input });
  if (res.code !== 0) throw new Error(`portico ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
  return res.stdout;
};
const config = async (user: CliUser) =>
  YAML.parse(await readFile(user.configFile, 'utf8')) as { currentContext: string; contexts: { name: string; user: string; token: string }[] };

beforeAll(async () => {
  assertCliBuilt();
  server = await startPorticoServer();
  root = await mkdtemp(join(tmpdir(), 'portico-cli-manage-'));
  ops = { home: join(root, 'ops'), configFile: join(root, 'ops', 'portico', 'config.yaml') };
  host = new URL(server.url).host;
  sdk = createClient({ baseUrl: server.url, token: (await loginLocal(server.url, 'admin', server.adminPassword)).token });
  await ok(ops, ['login', server.url, '--username', 'admin', '--password-stdin'], server.adminPassword);
});

afterAll(async () => {
  await server?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('accounts and contexts', spawnHeavy, () => {
  it('account create / list: a Server Admin creates an account that can then sign in', async () => {
    expect(await ok(ops, ['account', 'create', 'dana', '--group', 'qa', '--password-stdin'], 'dana-password-1\n')).toBe('account "dana" created (groups qa)\n');
    const list = json<{ items: { username: string; groups: string[] }[] }>(await ok(ops, ['account', 'list', '-o', 'json']));
    expect(list.items).toContainEqual(expect.objectContaining({ username: 'dana', groups: ['qa'] }));
    expect((await ok(ops, ['account', 'list', '-o', 'name'])).split('\n')).toContain('account/dana');
    expect(await ok(ops, ['account', 'list'])).toMatch(/^USERNAME\s+GROUPS\s+AGE\n(.*\n)*dana\s+qa\s+\d+s\n/m);
  });

  it("a second user's login gets its own context beside the first one's, and both keep working", async () => {
    const out = await ok(ops, ['login', server.url, '--username', 'dana', '--password-stdin'], 'dana-password-1\n');
    expect(out).toContain(`context "dana@${host}"`);
    const saved = await config(ops);
    expect(saved.contexts.map((c) => [c.name, c.user])).toEqual([
      [host, 'admin'],
      [`dana@${host}`, 'dana'],
    ]);
    expect(saved.currentContext).toBe(`dana@${host}`);
    expect(json(await ok(ops, ['account', 'info', '-o', 'json'])).userID).toBe('dana');
    await ok(ops, ['context', 'use', host]);
    expect(json(await ok(ops, ['account', 'info', '-o', 'json'])).userID).toBe('admin');
    // Signing in again as admin reuses admin's context instead of adding a third.
    await ok(ops, ['login', server.url, '--username', 'admin', '--password-stdin'], server.adminPassword);
    expect((await config(ops)).contexts).toHaveLength(2);
  });

  it('context rename and list -o name; use/delete of an unknown context exit 1', async () => {
    expect(await ok(ops, ['context', 'rename', `dana@${host}`, 'dana'])).toBe(`Renamed context "dana@${host}" to "dana"\n`);
    expect(await ok(ops, ['context', 'list', '-o', 'name'])).toBe(`${host}\ndana\n`);
    const taken = await runCli(ops, ['context', 'rename', 'dana', host]);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toContain(`context "${host}" already exists`);
    expect((await runCli(ops, ['context', 'delete', 'nobody'])).code).toBe(1);
  });

  it('account passwd changes the password, ends older sessions and signs this context in again', async () => {
    await ok(ops, ['context', 'use', 'dana']);
    const before = (await config(ops)).contexts.find((c) => c.name === 'dana')!.token;
    const out = await ok(ops, ['account', 'passwd', '--password-stdin'], 'dana-password-1\ndana-password-2\n');
    expect(out).toContain('password changed for "dana"');
    const after = (await config(ops)).contexts.find((c) => c.name === 'dana')!.token;
    expect(after).not.toBe(before);
    expect(json(await ok(ops, ['account', 'info', '-o', 'json'])).userID).toBe('dana');
    await expect(loginLocal(server.url, 'dana', 'dana-password-1')).rejects.toMatchObject({ status: 401 });
    await expect(createClient({ baseUrl: server.url, token: before }).account.info()).rejects.toMatchObject({ status: 401 });
    const wrong = await runCli(ops, ['account', 'passwd', '--password-stdin'], { input: 'not-it\ndana-password-3\n' });
    expect(wrong.code).not.toBe(0);
  });

  it('account delete removes the account; its context no longer works, then context delete forgets it', async () => {
    await ok(ops, ['context', 'use', host]);
    expect(await ok(ops, ['account', 'delete', 'dana'])).toBe('account "dana" deleted\n');
    expect((await ok(ops, ['account', 'list', '-o', 'name'])).split('\n')).not.toContain('account/dana');
    const stale = await runCli(ops, ['account', 'info'], { env: { PORTICO_SERVER: server.url, PORTICO_TOKEN: (await config(ops)).contexts.find((c) => c.name === 'dana')!.token } });
    expect(stale.code).toBe(3);
    expect(await ok(ops, ['context', 'delete', 'dana'])).toBe('Deleted context "dana"\n');
    expect((await config(ops)).contexts.map((c) => c.name)).toEqual([host]);
  });
});

describe('projects and roles', spawnHeavy, () => {
  const project = async () => sdk.projects.get('manage');

  it('project update changes the description and replaces destinations', async () => {
    await ok(ops, ['project', 'create', 'manage', '--destination', 'dev']);
    await ok(ops, ['project', 'update', 'manage', '--description', 'managed from the CLI']);
    expect(await ok(ops, ['project', 'get', 'manage', '-o', 'jsonpath={.description}'])).toBe('managed from the CLI\n');
    await ok(ops, ['project', 'update', 'manage', '--destination', 'qa', '--destination', 'team-*']);
    expect((await project()).destinations).toEqual([{ namespace: 'qa' }, { namespace: 'team-*' }]);
    expect((await runCli(ops, ['project', 'update', 'manage'])).code).toBe(2);
  });

  it('add-destination / remove-destination change only what they name', async () => {
    expect(await ok(ops, ['project', 'add-destination', 'manage', 'dev', 'qa'])).toBe('project "manage" destinations: qa, team-*, dev\n');
    expect(await ok(ops, ['project', 'remove-destination', 'manage', 'team-*'])).toBe('project "manage" destinations: qa, dev\n');
    const unknown = await runCli(ops, ['project', 'remove-destination', 'manage', 'prod']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('has no destination prod');
    expect((await project()).destinations.map((d) => d.namespace)).toEqual(['qa', 'dev']);
  });

  it('role create / add-policy / remove-policy / delete define what a bound user may do', async () => {
    await sdk.accounts.create({ username: 'erin', password: 'erin-password-1', groups: [] });
    const erin: CliUser = { home: join(root, 'erin'), configFile: join(root, 'erin', 'config.yaml') };
    await ok(erin, ['login', server.url, '--username', 'erin', '--password-stdin'], 'erin-password-1');

    await ok(ops, ['project', 'role', 'create', 'manage', 'auditor', '--description', 'reads', '--policy', 'instances/*,get,allow']);
    await ok(ops, ['project', 'role', 'bind', 'manage', 'auditor', '--user', 'erin']);
    expect((await runCli(erin, ['can-i', 'get', 'instances', 'manage'])).stdout).toBe('yes\n');
    expect((await runCli(erin, ['can-i', 'delete', 'instances', 'manage'])).code).toBe(1);

    expect(await ok(ops, ['project', 'role', 'add-policy', 'manage', 'auditor', 'instances/* ,  delete, allow'])).toContain('"instances/*, delete, allow" added');
    expect((await runCli(erin, ['can-i', 'delete', 'instances', 'manage'])).code).toBe(0);
    await ok(ops, ['project', 'role', 'remove-policy', 'manage', 'auditor', 'instances/*, delete, allow']);
    expect((await runCli(erin, ['can-i', 'delete', 'instances', 'manage'])).code).toBe(1);
    expect((await project()).roles.find((r) => r.name === 'auditor')).toMatchObject({ description: 'reads', policies: ['instances/*, get, allow'], users: ['erin'] });

    expect((await runCli(ops, ['project', 'role', 'create', 'manage', 'auditor'])).code).toBe(2);
    await ok(ops, ['project', 'role', 'delete', 'manage', 'auditor']);
    expect((await project()).roles.map((r) => r.name)).not.toContain('auditor');
    expect((await runCli(erin, ['can-i', 'get', 'instances', 'manage'])).code).toBe(1);
    expect((await runCli(ops, ['project', 'role', 'delete', 'manage', 'auditor'])).code).toBe(1);
  });
});

describe('instances: patch, output formats, watch', spawnHeavy, () => {
  it('instance patch merges --set and --patch into the spec', async () => {
    await ok(ops, ['instance', 'create', 'WebApp', 'patched', '-p', 'default', '-n', 'dev', '--set', 'image=ghcr.io/acme/p:1', '--set', 'replicas=2']);
    expect(await ok(ops, ['instance', 'patch', 'WebApp', 'patched', '--set', 'replicas=4'])).toMatch(/^instance WebApp\/patched in dev patched \(resourceVersion \S+\)\n$/);
    await ok(ops, ['instance', 'patch', 'WebApp', 'patched', '-n', 'dev', '--patch', '{"image": "ghcr.io/acme/p:2"}']);
    expect(await ok(ops, ['instance', 'get', 'WebApp', 'patched', '-o', 'jsonpath={.spec.image} {.spec.replicas}'])).toBe('ghcr.io/acme/p:2 4\n');
    const refused = await runCli(ops, ['instance', 'patch', 'WebApp', 'patched', '--set', 'replicas=lots']);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('VALIDATION_FAILED');
    expect((await runCli(ops, ['instance', 'patch', 'WebApp', 'patched'])).code).toBe(2);
  });

  it('-o wide adds columns, -o name prints kind/name, -o jsonpath reads fields; a bad format exits 2', async () => {
    const narrow = (await ok(ops, ['instance', 'list', '-p', 'default'])).split('\n')[0];
    const wide = (await ok(ops, ['instance', 'list', '-p', 'default', '-o', 'wide'])).split('\n')[0];
    expect(narrow).not.toContain('RGD');
    expect(wide).toMatch(/^NAME\s+NAMESPACE\s+KIND\s+PROJECT\s+HEALTH\s+MODE\s+AGE\s+RGD\s+STATE\s+CREATED BY$/);
    expect((await ok(ops, ['instance', 'list', '-o', 'name'])).split('\n')).toContain('WebApp/patched');
    expect((await ok(ops, ['rgd', 'list', '-o', 'wide'])).split('\n')[0]).toContain('API VERSION');
    expect((await ok(ops, ['rgd', 'list', '-o', 'jsonpath={.items[*].name}'])).trim().split(' ')).toContain('web-app');
    expect(await ok(ops, ['project', 'list', '-o', 'name'])).toMatch(/^project\/default$/m);
    expect(await ok(ops, ['rgd', 'get', 'web-app', '-o', 'name'])).toBe('rgd/web-app\n');
    const bad = await runCli(ops, ['instance', 'list', '-o', 'xml']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid output format "xml"');
    expect((await runCli(ops, ['account', 'info', '-o', 'name'])).code).toBe(2);
  });

  it('instance list -w prints the list, then each change, until Ctrl-C (exit 0)', async () => {
    const child = spawn(process.execPath, [cliBin, 'instance', 'list', '-w', '-p', 'default', '-o', 'name'], {
      env: { PATH: process.env.PATH ?? '', HOME: ops.home, PORTICO_CONFIG: ops.configFile },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const until = async (text: string) => {
      for (const deadline = Date.now() + 20_000; !out.includes(text); ) {
        if (Date.now() > deadline) throw new Error(`never printed ${text}; got:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await until('WebApp/patched\n');
    // The subscription opens after the list is printed; keep creating until one shows (a create before it is missed).
    await new Promise((r) => setTimeout(r, 1000));
    await sdk.instances.create({ kind: 'WebApp', name: 'watched', project: 'default', namespace: 'dev', values: { image: 'ghcr.io/acme/w:1' } });
    await until('WebApp/watched\n');
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });
});

describe('name completion and version', spawnHeavy, () => {
  const complete = async (...words: string[]) => (await ok(ops, ['__complete', ...words])).split('\n').filter(Boolean);

  it('__complete offers real projects, RGDs, kinds, instances, accounts and contexts', async () => {
    expect(await complete('project', 'get', '')).toEqual(expect.arrayContaining(['default', 'manage']));
    expect(await complete('project', 'role', 'bind', 'ma')).toEqual(['manage']);
    expect(await complete('rgd', 'get', 'web-')).toEqual(['web-app']);
    expect(await complete('instance', 'get', 'Web')).toContain('WebApp');
    expect(await complete('instance', 'get', 'PostgresD')).toEqual(['PostgresDatabase']);
    expect(await complete('instance', 'edit', 'WebApp', '')).toEqual(expect.arrayContaining(['patched', 'watched']));
    expect(await complete('context', 'use', '')).toEqual([host]);
    expect(await complete('account', 'delete', 'er')).toEqual(['erin']);
    expect(await complete('instance', 'list', '-p', '')).toEqual(expect.arrayContaining(['default', 'manage']));
    expect(await complete('instance', 'list', '--health', 'De')).toEqual(['Degraded']);
    // signed out, there is nothing to offer, and no error on the prompt
    const stranger: CliUser = { home: join(root, 'stranger'), configFile: join(root, 'stranger', 'config.yaml') };
    expect(await runCli(stranger, ['__complete', 'project', 'get', ''])).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('version shows the client and the server release; --client needs no server', async () => {
    const serverPkg = json<{ version: string }>(await readFile(new URL('../../../server/package.json', import.meta.url), 'utf8'));
    expect(await ok(ops, ['version'])).toBe(`Client:  ${pkg.version}\nServer:  ${serverPkg.version} (${server.url})\n`);
    expect(json(await ok(ops, ['version', '-o', 'json']))).toEqual({ client: { version: pkg.version }, server: { version: serverPkg.version, url: server.url } });
    const stranger: CliUser = { home: join(root, 'stranger'), configFile: join(root, 'stranger', 'config.yaml') };
    expect(await ok(stranger, ['version', '--client'])).toBe(`Client:  ${pkg.version}\n`);
    const offline = await runCli(stranger, ['version']);
    expect(offline.stdout).toBe(`Client:  ${pkg.version}\n`);
    expect(offline.code).toBe(2);
  });
});
