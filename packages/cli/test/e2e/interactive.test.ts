import { createClient, loginLocal } from '@portico/client';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { startPorticoServer, type PorticoProcess } from '../../../client/test/e2e/portico-server.js';
import { assertCliBuilt, cliBin, runCli, type CliUser } from './run-cli.js';
import { startTerminal, type TerminalSession } from './tmux.js';

// The built `portico` binary in a real pseudo-terminal (tmux), answering its prompts as a person would.

let server: PorticoProcess;
let root: string;
let me: CliUser;
let terminal: TerminalSession | undefined;

beforeAll(async () => {
  assertCliBuilt();
  server = await startPorticoServer();
});

afterAll(async () => {
  await server?.stop();
});

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'portico-tty-'));
  me = { home: root, configFile: join(root, 'portico', 'config.yaml') };
});

afterEach(async () => {
  terminal?.kill();
  terminal = undefined;
  await rm(root, { recursive: true, force: true });
});

/** `portico …` in a terminal as `me`, with nothing from the test's environment but PATH (and `env`). */
const portico = (args: string[], env: Record<string, string> = {}) =>
  (terminal = startTerminal([process.execPath, cliBin, ...args], {
    PATH: process.env.PATH ?? '',
    HOME: me.home,
    PORTICO_CONFIG: me.configFile,
    TERM: 'xterm-256color',
    ...env,
  }));

const loginAsAdmin = async () => {
  const login = await runCli(me, ['login', server.url, '--username', 'admin', '--password-stdin'], { input: server.adminPassword });
  expect(login.code).toBe(0);
};

const adminClient = async () => createClient({ baseUrl: server.url, token: (await loginLocal(server.url, 'admin', server.adminPassword)).token });

/** An $EDITOR: a shell script that edits the file it is given with `body` ($1 is the file). */
async function scriptedEditor(name: string, body: string): Promise<string> {
  const path = join(root, name);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

describe('portico in a terminal', () => {
  it('login asks for the password without echoing it and saves the session', async () => {
    const tty = portico(['login', server.url, '--username', 'admin']);
    await tty.waitFor(/Password/);
    tty.type(server.adminPassword);
    tty.press('Enter');
    expect(await tty.exitCode()).toBe(0);
    const screen = tty.screen();
    expect(screen).toContain(`Logged in to ${server.url} as admin`);
    expect(screen).not.toContain(server.adminPassword);

    const config = YAML.parse(await readFile(me.configFile, 'utf8')) as { currentContext: string; contexts: { name: string; server: string; token: string }[] };
    expect(config.contexts).toEqual([expect.objectContaining({ name: config.currentContext, server: server.url })]);
    // the saved token works for the next command
    const info = await runCli(me, ['account', 'info', '-o', 'json']);
    expect(info.code).toBe(0);
    expect(JSON.parse(info.stdout)).toEqual(expect.objectContaining({ userID: 'admin' }));
  });

  it('instance create asks for a required value the RGD schema has no default for, then creates the instance', async () => {
    await loginAsAdmin();

    // WebApp's schema: `image: string | required=true` with no default.
    const tty = portico(['instance', 'create', 'WebApp', 'tty-shop', '-p', 'default', '-n', 'dev', '--set', 'replicas=2']);
    await tty.waitFor(/image \(string\) - Container image/);
    tty.press('Enter'); // an empty answer is refused on the spot
    await tty.waitFor(/required/);
    tty.type('ghcr.io/acme/tty-shop:2.0');
    tty.press('Enter');
    expect(await tty.exitCode()).toBe(0);
    expect(tty.screen()).toContain('instance WebApp/tty-shop created in dev (project default, mode direct)');

    const { token } = await loginLocal(server.url, 'admin', server.adminPassword);
    const created = await createClient({ baseUrl: server.url, token }).instances.get({ kind: 'WebApp', name: 'tty-shop', namespace: 'dev' });
    expect(created.spec).toEqual(expect.objectContaining({ image: 'ghcr.io/acme/tty-shop:2.0', replicas: 2 }));
  });
  it('instance edit opens $EDITOR on the spec and applies what was saved', async () => {
    await loginAsAdmin();
    const admin = await adminClient();
    await admin.instances.create({ kind: 'WebApp', name: 'edited', project: 'default', namespace: 'dev', values: { image: 'ghcr.io/acme/e:1', replicas: 2 } });
    const editor = await scriptedEditor('bump.sh', `sed -i 's/^replicas: 2$/replicas: 5/' "$1"`);
    const tty = portico(['instance', 'edit', 'WebApp', 'edited'], { EDITOR: editor });
    expect(await tty.exitCode()).toBe(0);
    expect(tty.screen()).toMatch(/instance WebApp\/edited in dev edited \(resourceVersion \S+\)/);
    expect((await admin.instances.get({ kind: 'WebApp', name: 'edited', namespace: 'dev' })).spec).toMatchObject({ replicas: 5, image: 'ghcr.io/acme/e:1' });
  });

  it('instance edit refuses a spec the RGD schema rejects, reopens it with the problem on top, and sends only a valid one', async () => {
    await loginAsAdmin();
    const admin = await adminClient();
    await admin.instances.create({ kind: 'WebApp', name: 'checked', project: 'default', namespace: 'dev', values: { image: 'ghcr.io/acme/c:1', replicas: 2 } });
    // First round writes an invalid replica count; the second round (the file now shows the problem) fixes it.
    const problemsFile = join(root, 'problems.txt');
    const editor = await scriptedEditor(
      'twice.sh',
      `if grep -q 'not applied' "$1"; then grep '^#   ' "$1" > '${problemsFile}'; sed -i 's/^replicas: lots$/replicas: 3/' "$1"; else sed -i 's/^replicas: 2$/replicas: lots/' "$1"; fi`,
    );
    const tty = portico(['instance', 'edit', 'WebApp', 'checked', '-n', 'dev'], { EDITOR: editor });
    expect(await tty.exitCode()).toBe(0);
    expect(await readFile(problemsFile, 'utf8')).toMatch(/^#   spec\.replicas: must be integer$/m);
    const after = await admin.instances.get({ kind: 'WebApp', name: 'checked', namespace: 'dev' });
    // Sent to the server, "lots" would have ended the command with VALIDATION_FAILED (exit 4), not a retry.
    expect(after.spec).toMatchObject({ replicas: 3 });
  });

  it('instance edit with nothing changed sends nothing', async () => {
    await loginAsAdmin();
    const admin = await adminClient();
    const created = await admin.instances.create({ kind: 'WebApp', name: 'untouched', project: 'default', namespace: 'dev', values: { image: 'ghcr.io/acme/u:1' } });
    // Healthy first: the controller's status writes move the resourceVersion until then.
    await admin.waitFor(created, 'Healthy', { timeoutMs: 20_000 });
    const ref = { kind: 'WebApp', name: 'untouched', namespace: 'dev' };
    const before = await admin.instances.get(ref);
    const tty = portico(['instance', 'edit', 'WebApp', 'untouched'], { EDITOR: 'true' });
    expect(await tty.exitCode()).toBe(0);
    expect(tty.screen()).toContain('Edit cancelled, no changes made.');
    expect((await admin.instances.get(ref)).resourceVersion).toBe(before.resourceVersion);
  });

  it('account create asks for the password twice and starts over when they differ', async () => {
    await loginAsAdmin();
    const tty = portico(['account', 'create', 'gwen']);
    await tty.waitFor(/Password for gwen/);
    tty.type('gwen-password-1');
    tty.press('Enter');
    await tty.waitFor(/Repeat it/);
    tty.type('gwen-password-X');
    tty.press('Enter');
    await tty.waitFor(/The two passwords differ, try again/);
    await tty.waitFor(/Password for gwen.*\n(.*\n)*.*Password for gwen/);
    tty.type('gwen-password-2');
    tty.press('Enter');
    await tty.waitFor(/Repeat it(.*\n)*.*Repeat it/);
    tty.type('gwen-password-2');
    tty.press('Enter');
    expect(await tty.exitCode()).toBe(0);
    expect(tty.screen()).toContain('account "gwen" created');
    expect(tty.screen()).not.toContain('gwen-password');
    await expect(loginLocal(server.url, 'gwen', 'gwen-password-2')).resolves.toMatchObject({ user: expect.objectContaining({ id: 'gwen' }) });
  });

  it('account passwd asks for the current and the new password', async () => {
    const admin = await adminClient();
    await admin.accounts.create({ username: 'hank', password: 'hank-password-1', groups: [] });
    expect((await runCli(me, ['login', server.url, '--username', 'hank', '--password-stdin'], { input: 'hank-password-1' })).code).toBe(0);
    const tty = portico(['account', 'passwd']);
    await tty.waitFor(/Current password/);
    tty.type('hank-password-1');
    tty.press('Enter');
    await tty.waitFor(/New password/);
    tty.type('hank-password-2');
    tty.press('Enter');
    await tty.waitFor(/Repeat it/);
    tty.type('hank-password-2');
    tty.press('Enter');
    expect(await tty.exitCode()).toBe(0);
    expect(tty.screen()).toContain('password changed for "hank"');
    await expect(loginLocal(server.url, 'hank', 'hank-password-2')).resolves.toBeDefined();
    // the context was signed in again with the new password
    expect(JSON.parse((await runCli(me, ['account', 'info', '-o', 'json'])).stdout)).toMatchObject({ userID: 'hank' });
  });
});
