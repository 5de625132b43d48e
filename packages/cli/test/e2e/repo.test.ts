import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPorticoServer, type PorticoProcess } from '../../../client/test/e2e/portico-server.js';
import { assertCliBuilt, runCli, type CliUser } from './run-cli.js';

// `portico repo list|get|add|update|test|delete` (docs/cli.md): the BUILT binary against the REAL server.
// Credentials come from stdin or files and are never printed back.

let server: PorticoProcess;
let root: string;
let admin: CliUser;
const password = 'cli-repo-pw-5d1e';
const token = 'cli-repo-token-8a2f';
const json = <T = any>(text: string) => JSON.parse(text) as T;
const ok = async (args: string[], input?: string) => {
  const res = await runCli(admin, args, { input });
  if (res.code !== 0) throw new Error(`portico ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
  return res.stdout;
};

beforeAll(async () => {
  assertCliBuilt();
  server = await startPorticoServer();
  root = await mkdtemp(join(tmpdir(), 'portico-cli-repo-'));
  admin = { home: join(root, 'admin'), configFile: join(root, 'admin', 'portico', 'config.yaml') };
  await ok(['login', server.url, '--username', 'admin', '--password-stdin'], `${server.adminPassword}\n`);
  await writeFile(join(root, 'token.txt'), `${token}\n`);
});

afterAll(async () => {
  await server?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('portico repo', { timeout: 60_000 }, () => {
  // `.invalid` never resolves: registering does not contact the remote; testing says the host is unknown.
  const url = 'https://git.portico.invalid/platform/deploys.git';
  let id = '';

  it('add reads the password from stdin, prints the new id, and never the password', async () => {
    const out = await ok(['repo', 'add', 'Deploys', '-p', 'default', '--url', url, '--username', 'ci', '--password-stdin'], `${password}\n`);
    id = /registered as (repo-[a-z0-9]+)/.exec(out)?.[1] ?? '';
    expect(out).toBe(`repository "Deploys" registered as ${id}\n`);
    expect(out).not.toContain(password);
  });

  it('list and get show it (-o json parses), with no credential', async () => {
    const table = await ok(['repo', 'list', '-p', 'default']);
    expect(table).toMatch(new RegExp(`${id}\\s+default\\s+Deploys\\s+${url.replace(/[.]/g, '\\.')}\\s+https\\s+main\\s+unknown`));
    const got = json(await ok(['repo', 'get', id, '-o', 'json']));
    expect(got).toMatchObject({ id, projectId: 'default', repoURL: url, authType: 'https' });
    expect(JSON.stringify(got) + table).not.toContain(password);
  });

  it('update replaces credentials from a file and changes the branch', async () => {
    expect(await ok(['repo', 'update', id, '--branch', 'release', '--token-file', join(root, 'token.txt')])).toBe(`repository ${id} updated\n`);
    expect(json(await ok(['repo', 'get', id, '-o', 'json'])).defaultBranch).toBe('release');
    const nothing = await runCli(admin, ['repo', 'update', id]);
    expect(nothing.code).toBe(2);
    const mixed = await runCli(admin, ['repo', 'update', id, '--ssh-key-file', join(root, 'token.txt')]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('are for ssh URLs');
  });

  it('test exits 1 naming the cause; -o json prints the verdict', async () => {
    const failed = await runCli(admin, ['repo', 'test', id]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('connection test failed: unknown host');
    expect(failed.stderr + failed.stdout).not.toContain(token);
    const verdict = await runCli(admin, ['repo', 'test', id, '-o', 'json']);
    expect(json(verdict.stdout)).toMatchObject({ valid: false, details: { repository: url, branch: 'release' } });
    expect(json(await ok(['repo', 'get', id, '-o', 'json'])).validationStatus).toBe('invalid');
  });

  it('delete removes it; a second delete exits 1 (not found)', async () => {
    expect(await ok(['repo', 'delete', id])).toBe(`repository ${id} deleted\n`);
    expect((await runCli(admin, ['repo', 'delete', id])).code).toBe(1);
  });
});
