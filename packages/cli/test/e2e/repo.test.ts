import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPorticoServer, type PorticoProcess } from '../../../client/test/e2e/portico-server.js';
import { startGitServer, type GitServer } from '../../../core/test/support/git-server.js';
import { assertCliBuilt, runCli, type CliUser } from './run-cli.js';

// `portico repo list|get|add|update|test|delete` (docs/cli.md): the BUILT binary against the REAL server, and
// `portico instance create --mode gitops|hybrid --repo` against a real Git server on loopback (issue 39,
// acceptance 2). Credentials come from stdin or files and are never printed back.

let server: PorticoProcess;
let git: GitServer;
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
  git = await startGitServer();
  await git.createRepo('cli');
  server = await startPorticoServer({ env: { PORTICO_GIT_ALLOWED_HOSTS: 'localhost,127.0.0.0/8' } });
  root = await mkdtemp(join(tmpdir(), 'portico-cli-repo-'));
  admin = { home: join(root, 'admin'), configFile: join(root, 'admin', 'portico', 'config.yaml') };
  await ok(['login', server.url, '--username', 'admin', '--password-stdin'], `${server.adminPassword}\n`);
  await writeFile(join(root, 'token.txt'), `${token}\n`);
  await writeFile(join(root, 'ca.pem'), git.pki.caCert);
  await writeFile(join(root, 'id_ed25519'), git.clientKey.privateKey);
  await writeFile(join(root, 'known_hosts'), git.ssh.knownHosts);
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await git?.close();
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

describe('portico instance create --mode gitops|hybrid --repo', { timeout: 60_000 }, () => {
  let https = '';

  it('repo add --test registers HTTPS (password from stdin, CA from a file) and SSH (key and known hosts from files) remotes that pass', async () => {
    const added = await ok(['repo', 'add', 'CLI deploys', '-p', 'default', '--url', git.httpsUrl('cli'), '--username', git.username, '--password-stdin', '--ca-file', join(root, 'ca.pem'), '--test'], `${git.password}\n`);
    https = /registered as (repo-[a-z0-9]+)/.exec(added)?.[1] ?? '';
    expect(added).toMatch(/connection test passed: connected: branch "main" is at [0-9a-f]{12}\n$/);
    const viaSsh = await ok(['repo', 'add', 'CLI over SSH', '-p', 'default', '--url', git.sshUrl('cli'), '--ssh-key-file', join(root, 'id_ed25519'), '--known-hosts-file', join(root, 'known_hosts'), '--test']);
    expect(viaSsh).toContain('connection test passed');
    expect(added + viaSsh).not.toContain(git.password);
  });

  it('gitops pushes to the default path and prints the commit; hybrid takes --path; get shows where it lives', async () => {
    const gitops = await ok(['instance', 'create', 'WebApp', 'cli-gitops', '-p', 'default', '-n', 'dev', '--set', 'image=nginx:1.27', '--mode', 'gitops', '--repo', https]);
    const first = await git.lastCommit('cli', 'main');
    expect(gitops).toBe(`instance WebApp/cli-gitops created in dev (project default, mode gitops)\npushed ${first.sha.slice(0, 12)} to ${git.httpsUrl('cli')} main:default/dev/WebApp/cli-gitops.yaml\n`);
    expect(first.subject).toBe('Create WebApp dev/cli-gitops in project default');
    expect(await git.fileAt('cli', 'main', 'default/dev/WebApp/cli-gitops.yaml')).toContain('name: cli-gitops');

    const hybrid = await ok(['instance', 'create', 'WebApp', 'cli-hybrid', '-p', 'default', '-n', 'dev', '--set', 'image=nginx:1.27', '--mode', 'hybrid', '--repo', https, '--path', 'apps/cli-hybrid.yaml']);
    expect(hybrid).toContain(`main:apps/cli-hybrid.yaml`);
    expect(await git.fileAt('cli', 'main', 'apps/cli-hybrid.yaml')).toContain('name: cli-hybrid');
    const details = await ok(['instance', 'get', 'WebApp', 'cli-hybrid', '-n', 'dev']);
    expect(details).toMatch(new RegExp(`Repository:\\s+${https} \\(`));
    expect(details).toMatch(/Git file:\s+main:apps\/cli-hybrid\.yaml/);
    expect(details).toMatch(/Drift:\s+none/);
  });

  it('--repo without a Git mode is a usage error', async () => {
    const wrong = await runCli(admin, ['instance', 'create', 'WebApp', 'cli-direct', '-p', 'default', '-n', 'dev', '--set', 'image=nginx', '--repo', https]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--repo, --branch and --path go with --mode gitops or hybrid');
  });
});
