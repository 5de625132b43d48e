import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PreflightResponse } from '@portico/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPorticoServer, type PorticoProcess } from '../../../client/test/e2e/portico-server.js';
import { assertCliBuilt, runCli, type CliUser } from './run-cli.js';

// `portico instance create --dry-run` (§11.4) with the BUILT binary against the REAL server: the checks as a
// table or as the answer itself, exit 0 when the create would succeed and 1 when it would not, nothing written.

let server: PorticoProcess;
let root: string;
let admin: CliUser;

beforeAll(async () => {
  assertCliBuilt();
  server = await startPorticoServer();
  root = await mkdtemp(join(tmpdir(), 'portico-cli-preflight-'));
  admin = { home: join(root, 'admin'), configFile: join(root, 'admin', 'portico', 'config.yaml') };
  const login = await runCli(admin, ['login', server.url, '--username', 'admin', '--password-stdin'], { input: `${server.adminPassword}\n` });
  expect(login.code).toBe(0);
});

afterAll(async () => {
  await server?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('portico instance create --dry-run', () => {
  it('prints every check in the create\'s order and exits 0 when the create would succeed, creating nothing', async () => {
    const res = await runCli(admin, ['instance', 'create', 'WebApp', 'dry-shop', '-p', 'default', '-n', 'dev', '--set', 'image=nginx:1.27', '--dry-run']);
    expect(res.stderr).toBe('WebApp/dry-shop would be created (nothing was written)\n');
    expect(res.code).toBe(0);
    const rows = res.stdout.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
    expect(rows[0]).toEqual(['CHECK', 'RESULT', 'MESSAGE']);
    expect(rows.slice(1).map((r) => r[0])).toEqual(['request', 'project', 'permission', 'destination', 'rgd', 'values', 'deploymentMode', 'name', 'compliance', 'admission']);
    expect(rows.slice(1).map((r) => r[1]), res.stdout).toEqual(Array(10).fill('ok'));
    const get = await runCli(admin, ['instance', 'get', 'WebApp', 'dry-shop', '-n', 'dev']);
    expect(get.code).toBe(1);
  });

  it('exits 1 with the failing check\'s message when the create would fail; -o json prints the answer as is', async () => {
    const res = await runCli(admin, ['instance', 'create', 'WebApp', 'dry-shop', '-p', 'default', '-n', 'dev', '--set', 'replicas=99', '--dry-run', '-o', 'json']);
    expect(res.code).toBe(1);
    const answer = PreflightResponse.parse(JSON.parse(res.stdout));
    expect(answer.valid).toBe(false);
    expect(answer.checks.at(-1)).toMatchObject({ name: 'values', ok: false });
    expect(res.stderr).toBe(`error: the create would fail: ${answer.message}\n`);
  });

  it('refuses --wait and a -o without --dry-run as usage errors', async () => {
    const wait = await runCli(admin, ['instance', 'create', 'WebApp', 'dry-shop', '-p', 'default', '-n', 'dev', '--set', 'image=nginx', '--dry-run', '--wait']);
    expect(wait).toMatchObject({ code: 2, stderr: 'error: --dry-run creates nothing to --wait for\n' });
    const output = await runCli(admin, ['instance', 'create', 'WebApp', 'dry-shop', '-p', 'default', '-n', 'dev', '--set', 'image=nginx', '-o', 'json']);
    expect(output).toMatchObject({ code: 2, stderr: 'error: -o goes with --dry-run\n' });
  });
});
