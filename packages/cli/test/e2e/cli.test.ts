import { createClient, loginLocal } from '@portico/client';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { startPorticoServer, type PorticoProcess } from '../../../client/test/e2e/portico-server.js';
import { assertCliBuilt, runCli, type CliUser } from './run-cli.js';

// The BUILT `portico` binary against the REAL server (the built bin, spawned), each user with their own HOME and
// config file. Tests run in order and build on each other, as a user's session would.

let server: PorticoProcess;
let root: string;
let admin: CliUser;
let dana: CliUser;

const user = (name: string): CliUser => ({ home: join(root, name), configFile: join(root, name, 'portico', 'config.yaml') });
const json = <T = Record<string, unknown>>(text: string) => JSON.parse(text) as T;

beforeAll(async () => {
  assertCliBuilt();
  server = await startPorticoServer();
  root = await mkdtemp(join(tmpdir(), 'portico-cli-e2e-'));
  admin = user('admin');
  dana = user('dana');
});

afterAll(async () => {
  await server?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('portico against a real server', () => {
  it('login --password-stdin signs in and writes a private config file', async () => {
    const res = await runCli(admin, ['login', server.url, '--username', 'admin', '--password-stdin'], { input: `${server.adminPassword}\n` });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(new RegExp(`^Logged in to ${server.url} as admin \\(context "127\\.0\\.0\\.1:\\d+", session until `));
    const config = YAML.parse(await readFile(admin.configFile, 'utf8')) as { currentContext: string; contexts: { server: string; token: string; user: string }[] };
    expect(config.contexts).toHaveLength(1);
    expect(config.contexts[0]).toEqual(expect.objectContaining({ server: server.url, user: 'admin' }));
    expect(config.contexts[0].token.split('.')).toHaveLength(3);
    expect((await stat(admin.configFile)).mode & 0o777).toBe(0o600);
  });

  it('a wrong password exits 3 with the server code on stderr', async () => {
    const res = await runCli(user('stranger'), ['login', server.url, '--username', 'admin', '--password-stdin'], { input: 'wrong-password\n' });
    expect(res.code).toBe(3);
    expect(res.stderr).toMatch(/^error: UNAUTHORIZED: .*\(request [\w-]+\)\n$/);
  });

  it('account info -o json names the signed-in user', async () => {
    const res = await runCli(admin, ['account', 'info', '-o', 'json']);
    expect(res.code).toBe(0);
    expect(json(res.stdout)).toEqual(expect.objectContaining({ userID: 'admin', serverAdmin: true }));
  });

  it('rgd list --category databases -o json parses and holds only that category', async () => {
    const res = await runCli(admin, ['rgd', 'list', '--category', 'databases', '-o', 'json']);
    expect(res.code).toBe(0);
    const list = json<{ items: { name: string; category: string }[]; totalCount: number }>(res.stdout);
    expect(list.items.length).toBeGreaterThan(0);
    expect(list.totalCount).toBe(list.items.length);
    expect(list.items.every((r) => r.category === 'databases')).toBe(true);
    expect(list.items.map((r) => r.name)).toContain('postgres-database');
    expect(list.items.map((r) => r.name)).not.toContain('web-app');
  });

  it('rgd get -o yaml parses and carries the values schema', async () => {
    const res = await runCli(admin, ['rgd', 'get', 'web-app', '-o', 'yaml']);
    expect(res.code).toBe(0);
    const rgd = YAML.parse(res.stdout) as { kind: string; schema: { required: string[] } };
    expect(rgd.kind).toBe('WebApp');
    expect(rgd.schema.required).toContain('image');
  });

  it('project create, then get -o json and list -o yaml show it', async () => {
    const created = await runCli(admin, ['project', 'create', 'cli-e2e', '--description', 'CLI end-to-end', '--destination', 'dev']);
    expect(created.code).toBe(0);
    expect(created.stdout).toBe('project "cli-e2e" created\n');
    const got = await runCli(admin, ['project', 'get', 'cli-e2e', '-o', 'json']);
    expect(json(got.stdout)).toEqual(expect.objectContaining({ name: 'cli-e2e', description: 'CLI end-to-end', destinations: [{ namespace: 'dev' }] }));
    const listed = await runCli(admin, ['project', 'list', '-o', 'yaml']);
    expect((YAML.parse(listed.stdout) as { items: { name: string }[] }).items.map((p) => p.name)).toEqual(expect.arrayContaining(['default', 'cli-e2e']));
    const again = await runCli(admin, ['project', 'create', 'cli-e2e']);
    expect(again.code).toBe(4);
    expect(again.stderr).toMatch(/^error: CONFLICT: /);
  });

  it("a role binding flips the user's can-i from no (exit 1) to yes (exit 0); change and unbind take it back", async () => {
    // A local account for dana, made through the SDK by the admin.
    const { token } = await loginLocal(server.url, 'admin', server.adminPassword);
    await createClient({ baseUrl: server.url, token }).accounts.create({ username: 'dana', password: 'dana-password-1' });
    const login = await runCli(dana, ['login', server.url, '--username', 'dana', '--password-stdin'], { input: 'dana-password-1' });
    expect(login.code).toBe(0);

    const canCreate = () => runCli(dana, ['can-i', 'create', 'instances', 'cli-e2e']);
    const canGet = () => runCli(dana, ['can-i', 'get', 'instances', 'cli-e2e']);
    const before = await canCreate();
    expect({ code: before.code, out: before.stdout }).toEqual({ code: 1, out: 'no\n' });

    const bind = await runCli(admin, ['project', 'role', 'bind', 'cli-e2e', 'developer', '--user', 'dana']);
    expect(bind.code).toBe(0);
    expect(bind.stdout).toBe('user "dana" bound to role "developer" in project "cli-e2e"\n');
    const after = await canCreate();
    expect({ code: after.code, out: after.stdout }).toEqual({ code: 0, out: 'yes\n' });

    const change = await runCli(admin, ['project', 'role', 'change', 'cli-e2e', '--user', 'dana', '--from', 'developer', '--to', 'viewer']);
    expect(change.code).toBe(0);
    expect(change.stdout).toBe('user "dana" moved from role "developer" to "viewer" in project "cli-e2e"\n');
    const bindings = await runCli(admin, ['project', 'role', 'bindings', 'cli-e2e', '-o', 'json']);
    expect(json(bindings.stdout)).toEqual({ project: 'cli-e2e', bindings: [{ role: 'viewer', type: 'user', subject: 'dana' }] });
    expect((await canCreate()).code).toBe(1);
    expect((await canGet()).code).toBe(0);

    const unbind = await runCli(admin, ['project', 'role', 'unbind', 'cli-e2e', 'viewer', '--user', 'dana']);
    expect(unbind.code).toBe(0);
    expect(unbind.stdout).toBe('user "dana" unbound from role "viewer" in project "cli-e2e"\n');
    expect((await canGet()).code).toBe(1);
    const none = await runCli(admin, ['project', 'role', 'bindings', 'cli-e2e']);
    expect(none.stdout).toBe('No bindings in project "cli-e2e".\n');
  });

  it('instance create --wait shows progress and ends Healthy (exit 0)', async () => {
    const res = await runCli(admin, [
      'instance', 'create', 'WebApp', 'shop', '-p', 'default', '-n', 'dev',
      '--set', 'image=ghcr.io/acme/shop:1.4.2', '--set', 'replicas=3', '--wait', '--timeout', '60s',
    ]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('instance WebApp/shop created in dev (project default, mode direct)');
    // without a terminal, one plain line per change: resource counts from deploy_progress events
    expect(lines.some((l) => /^WebApp\/shop in dev .*\d+\/\d+ \[[#-]+\]/.test(l))).toBe(true);
    // the last progress line agrees with the verdict: all resources ready, kro's state ACTIVE
    expect(lines.at(-2)).toMatch(/^WebApp\/shop in dev {2}Healthy {2}(\d+)\/\1 \[#+\] {2}ACTIVE/);
    expect(lines.at(-1)).toBe('instance WebApp/shop is Healthy');
  });

  it('instance list and get print parseable JSON and YAML', async () => {
    const list = await runCli(admin, ['instance', 'list', '-p', 'default', '-o', 'json']);
    expect(list.code).toBe(0);
    const items = json<{ items: { name: string; health: string }[]; totalCount: number }>(list.stdout).items;
    expect(items.find((i) => i.name === 'shop')?.health).toBe('Healthy');

    const asJson = await runCli(admin, ['instance', 'get', 'WebApp', 'shop', '-o', 'json']);
    expect(asJson.code).toBe(0);
    const instance = json<{ namespace: string; spec: Record<string, unknown>; health: string }>(asJson.stdout);
    expect(instance.namespace).toBe('dev'); // found without -n
    expect(instance.spec).toEqual(expect.objectContaining({ image: 'ghcr.io/acme/shop:1.4.2', replicas: 3 }));

    const asYaml = await runCli(admin, ['instance', 'get', 'WebApp', 'shop', '-n', 'dev', '-o', 'yaml']);
    expect(asYaml.code).toBe(0);
    expect(YAML.parse(asYaml.stdout)).toEqual(expect.objectContaining({ name: 'shop', spec: instance.spec, health: 'Healthy' }));

    const listYaml = await runCli(admin, ['instance', 'list', '-o', 'yaml']);
    expect((YAML.parse(listYaml.stdout) as { totalCount: number }).totalCount).toBe(1);
  });

  it('refuses what the server or the schema refuses, with the exit code of docs/cli.md', async () => {
    const missing = await runCli(admin, ['instance', 'create', 'WebApp', 'nope', '-p', 'default', '-n', 'dev']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('error: missing required value image (pass --set image=… or -f values.yaml)\n');

    const elsewhere = await runCli(admin, ['instance', 'create', 'WebApp', 'far', '-p', 'default', '-n', 'prod', '--set', 'image=x']);
    expect(elsewhere.code).toBe(3);
    expect(elsewhere.stderr).toMatch(/^error: FORBIDDEN: .*\(allowed: dev, staging\)/);

    const invalid = await runCli(admin, ['instance', 'create', 'WebApp', 'big', '-p', 'default', '-n', 'dev', '--set', 'image=x', '--set', 'replicas=99']);
    expect(invalid.code).toBe(4);
    expect(invalid.stderr).toMatch(/^error: VALIDATION_FAILED: .*spec\.replicas: /);

    // dana belongs to no project, so the catalog shows her nothing: the kind is unknown to her (exit 1)
    const create = ['instance', 'create', 'WebApp', 'sneaky', '-p', 'default', '-n', 'dev', '--set', 'image=x'];
    const notMember = await runCli(dana, create);
    expect(notMember.code).toBe(1);
    expect(notMember.stderr).toBe('error: no catalog RGD has kind "WebApp" (see portico rgd list)\n');
    // as a viewer she sees the kind, and the server refuses the creation (exit 3)
    expect((await runCli(admin, ['project', 'role', 'bind', 'default', 'viewer', '--user', 'dana'])).code).toBe(0);
    const viewer = await runCli(dana, create);
    expect(viewer.code).toBe(3);
    expect(viewer.stderr).toMatch(/^error: FORBIDDEN: /);
  });

  it('instance delete --wait returns once the instance is gone', async () => {
    const res = await runCli(admin, ['instance', 'delete', 'WebApp', 'shop', '-n', 'dev', '--wait', '--timeout', '30s']);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('instance WebApp/shop in dev deleted\n');
    const get = await runCli(admin, ['instance', 'get', 'WebApp', 'shop', '-n', 'dev']);
    expect(get.code).toBe(1);
  });

  it('logout revokes the token: the next command needs a new login', async () => {
    const config = YAML.parse(await readFile(dana.configFile, 'utf8')) as { contexts: { token: string }[] };
    const danaToken = config.contexts[0].token;
    const res = await runCli(dana, ['logout']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^Logged out of /);
    const after = await runCli(dana, ['project', 'list']);
    expect(after.code).toBe(3);
    expect(after.stderr).toBe('error: not logged in, run portico login\n');
    // the server revoked the token itself, not only the config file
    const reused = await runCli(dana, ['project', 'list', '--server', server.url, '--token', danaToken]);
    expect(reused.code).toBe(3);
    expect(reused.stderr).toBe('error: the token given (--token or PORTICO_TOKEN) was refused: it is invalid, expired or revoked\n');
  });
});
