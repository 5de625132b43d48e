import { createClient, loginLocal } from '@portico/client';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
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

/** `portico …` in a terminal as `me`, with nothing from the test's environment but PATH. */
const portico = (...args: string[]) =>
  (terminal = startTerminal([process.execPath, cliBin, ...args], {
    PATH: process.env.PATH ?? '',
    HOME: me.home,
    PORTICO_CONFIG: me.configFile,
    TERM: 'xterm-256color',
  }));

describe('portico in a terminal', () => {
  it('login asks for the password without echoing it and saves the session', async () => {
    const tty = portico('login', server.url, '--username', 'admin');
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
    const login = await runCli(me, ['login', server.url, '--username', 'admin', '--password-stdin'], { input: server.adminPassword });
    expect(login.code).toBe(0);

    // WebApp's schema: `image: string | required=true` with no default.
    const tty = portico('instance', 'create', 'WebApp', 'tty-shop', '-p', 'default', '-n', 'dev', '--set', 'replicas=2');
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
});
