import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPorticoServer, type PorticoProcess } from '../../../client/test/e2e/portico-server.js';
import { assertCliBuilt, runCli, type CliUser } from './run-cli.js';

// `portico rgd schema|graph` and `portico instance events|history|children` (with -w): the BUILT binary against
// the REAL server, in order, as a user's session would go.

let server: PorticoProcess;
let root: string;
let admin: CliUser;
const json = <T = any>(text: string) => JSON.parse(text) as T;

beforeAll(async () => {
  assertCliBuilt();
  server = await startPorticoServer();
  root = await mkdtemp(join(tmpdir(), 'portico-cli-history-'));
  admin = { home: join(root, 'admin'), configFile: join(root, 'admin', 'portico', 'config.yaml') };
  const login = await runCli(admin, ['login', server.url, '--username', 'admin', '--password-stdin'], { input: `${server.adminPassword}\n` });
  expect(login.code).toBe(0);
  const created = await runCli(admin, ['instance', 'create', 'WebApp', 'hist', '-p', 'default', '-n', 'dev', '--set', 'image=nginx', '--wait', '--timeout', '60s']);
  expect(created.code).toBe(0);
});

afterAll(async () => {
  await server?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('portico rgd schema|graph and instance events|history|children', () => {
  it('rgd schema lists the form fields in the order the RGD declares them, nested ones as paths', async () => {
    const table = await runCli(admin, ['rgd', 'schema', 'web-app']);
    expect(table.code).toBe(0);
    const fields = table.stdout.split('\n').slice(2).map((l) => l.split(/\s+/)[0]).filter(Boolean);
    expect(fields.slice(0, 5)).toEqual(['image', 'replicas', 'port', 'env', 'resources']);
    expect(fields).toContain('ingress.enabled');
    const asJson = json(( await runCli(admin, ['rgd', 'schema', 'web-app', '-o', 'json'])).stdout);
    expect(asJson.schema.propertyOrder[0]).toBe('image');
    expect((await runCli(admin, ['rgd', 'schema', 'no-such-rgd'])).code).toBe(1);
  });

  it('rgd graph shows each resource with what it depends on', async () => {
    const res = await runCli(admin, ['rgd', 'graph', 'web-app', '-o', 'json']);
    expect(res.code).toBe(0);
    const graph = json(res.stdout);
    expect(graph.edges.length).toBeGreaterThan(0);
    const table = (await runCli(admin, ['rgd', 'graph', 'web-app'])).stdout;
    expect(table).toMatch(/^ID\s+KIND\s+DEPENDS ON\s+FLAGS/);
    expect(table).toMatch(/\ndeployment\s+Deployment \(apps\/v1\)/);
  });

  it('instance events, history and children answer tables and JSON (the namespace found by itself)', async () => {
    const events = json((await runCli(admin, ['instance', 'events', 'WebApp', 'hist', '-o', 'json'])).stdout);
    expect(events.items.map((e: { reason: string }) => e.reason)).toEqual(expect.arrayContaining(['Reconciling', 'ResourceCreated', 'Ready']));
    expect((await runCli(admin, ['instance', 'events', 'WebApp', 'hist'])).stdout).toMatch(/Normal\s+Ready\s+WebApp\/hist/);

    const history = json((await runCli(admin, ['instance', 'history', 'WebApp', 'hist', '-n', 'dev', '-o', 'json'])).stdout);
    expect(history.items[0]).toMatchObject({ type: 'created', actor: 'admin' });
    expect(history.items.at(-1)).toMatchObject({ type: 'status', toState: 'ACTIVE' });

    const children = await runCli(admin, ['instance', 'children', 'WebApp', 'hist']);
    expect(children.code).toBe(0);
    const rows = children.stdout.trimEnd().split('\n').slice(1);
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.every((r) => /\syes\s+Ready/.test(r))).toBe(true);
  });

  it('history -w prints new entries as they are recorded and ends when the instance is gone', async () => {
    const watching = runCli(admin, ['instance', 'history', 'WebApp', 'hist', '-n', 'dev', '-w', '-o', 'json'], { timeoutMs: 45_000 });
    await new Promise((r) => setTimeout(r, 1500)); // let it print what is there and subscribe
    expect((await runCli(admin, ['instance', 'delete', 'WebApp', 'hist', '-n', 'dev'])).code).toBe(0);
    const res = await watching;
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const entries = res.stdout.trim().split('\n').map((l) => json(l));
    expect(entries[0]).toMatchObject({ type: 'created' });
    expect(entries.map((e) => e.type)).toContain('deleted');
    expect(new Set(entries.map((e) => JSON.stringify(e))).size).toBe(entries.length); // each entry once
  });
});
