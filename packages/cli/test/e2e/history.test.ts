import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPorticoServer, type PorticoProcess } from '../../../client/test/e2e/portico-server.js';
import { assertCliBuilt, runCli, type CliUser } from './run-cli.js';

// `portico rgd schema|graph|revisions|revision|diff` and `portico instance events|history|timeline|children` (with
// -w): the BUILT binary against the REAL server, in order, as a user's session would go.

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

describe('portico rgd schema|graph|revisions and instance events|history|timeline|children', () => {
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

  it('rgd revisions, revision and diff: the recorded revisions, a snapshot, and what changed', async () => {
    const list = json((await runCli(admin, ['rgd', 'revisions', 'web-app', '-o', 'json'])).stdout);
    expect(list.items.at(-1)).toMatchObject({ revisionNumber: 1, rgdName: 'web-app' });
    expect((await runCli(admin, ['rgd', 'revisions', 'web-app'])).stdout).toMatch(/^REVISION\s+AGE\s+CREATED\s+BY\s+HASH\s+CONDITIONS\n1\s/);
    const one = json((await runCli(admin, ['rgd', 'revision', 'web-app', '1', '-o', 'json'])).stdout);
    expect(one.snapshot.schema.kind).toBe('WebApp');
    expect((await runCli(admin, ['rgd', 'diff', 'web-app', '1', '1'])).stdout).toBe('web-app: revision 1 → 1: identical\n');
    const missing = await runCli(admin, ['rgd', 'diff', 'web-app', '1', '99']);
    expect(missing.code).toBe(1);
    expect((await runCli(admin, ['rgd', 'revision', 'web-app', 'one'])).code).not.toBe(0);
  });

  it('instance events, history, timeline and children answer tables and JSON (the namespace found by itself)', async () => {
    const events = json((await runCli(admin, ['instance', 'events', 'WebApp', 'hist', '-o', 'json'])).stdout);
    expect(events.events.map((e: { reason: string }) => e.reason)).toEqual(expect.arrayContaining(['Reconciling', 'ResourceCreated', 'Ready']));
    expect((await runCli(admin, ['instance', 'events', 'WebApp', 'hist'])).stdout).toMatch(/Normal\s+Ready\s+WebApp\/hist/);

    const history = json((await runCli(admin, ['instance', 'history', 'WebApp', 'hist', '-n', 'dev', '-o', 'json'])).stdout);
    expect(history.events[0]).toMatchObject({ eventType: 'Created', user: 'admin' });
    expect(history.events.at(-1)).toMatchObject({ eventType: 'Ready' });
    const csv = await runCli(admin, ['instance', 'history', 'WebApp', 'hist', '--export', 'csv']);
    expect(csv.code).toBe(0);
    expect(csv.stdout.split('\r\n')[0]).toBe('Timestamp,Event,Status,User,Deployment Mode,Git Commit,Git Repository,Git Branch,Message,Details');

    const timeline = json((await runCli(admin, ['instance', 'timeline', 'WebApp', 'hist', '-o', 'json'])).stdout);
    expect(timeline.timeline.at(-1)).toMatchObject({ eventType: 'Ready', isCurrent: true });
    const kube = json((await runCli(admin, ['instance', 'timeline', 'WebApp', 'hist', '--source', 'kubernetes', '-o', 'json'])).stdout);
    expect(kube.timeline.every((e: { eventType: string }) => e.eventType === 'KubernetesEvent')).toBe(true);

    const children = await runCli(admin, ['instance', 'children', 'WebApp', 'hist']);
    expect(children.code).toBe(0);
    const rows = children.stdout.trimEnd().split('\n').slice(1);
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.every((r) => /\s(Healthy|None)\s+Ready$/.test(r))).toBe(true);
  });

  it('history -w prints new entries as they are recorded and ends when the instance is gone', async () => {
    const watching = runCli(admin, ['instance', 'history', 'WebApp', 'hist', '-n', 'dev', '-w', '-o', 'json'], { timeoutMs: 45_000 });
    await new Promise((r) => setTimeout(r, 1500)); // let it print what is there and subscribe
    expect((await runCli(admin, ['instance', 'delete', 'WebApp', 'hist', '-n', 'dev'])).code).toBe(0);
    const res = await watching;
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const entries = res.stdout.trim().split('\n').map((l) => json(l));
    expect(entries[0]).toMatchObject({ eventType: 'Created' });
    expect(entries.map((e) => e.eventType)).toContain('Deleted');
    expect(new Set(entries.map((e) => JSON.stringify(e))).size).toBe(entries.length); // each entry once
  });
});
