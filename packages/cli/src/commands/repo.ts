import { readFile } from 'node:fs/promises';
import type { RepoInfo } from '@portico/api';
import type { CreateRepositoryInput, UpdateRepositoryInput } from '@portico/client';
import type { Command } from 'commander';
import type { App } from '../app.js';
import { CliError, ExitCode, usageError } from '../exit-codes.js';
import { readAll, type Io } from '../io.js';
import { print } from '../output/render.js';
import { renderDetails, renderTable } from '../output/table.js';
import { formatOf, tableOptions, withAllProjects, withOutput } from './shared.js';

/**
 * Credentials come from files or stdin, never from an argument: arguments end up in shell history and in every
 * process listing on the machine.
 */
interface CredentialOptions {
  username?: string;
  passwordStdin?: boolean;
  passwordFile?: string;
  tokenFile?: string;
  caFile?: string;
  tlsClientCertFile?: string;
  tlsClientKeyFile?: string;
  sshKeyFile?: string;
  knownHostsFile?: string;
}

interface RepoOptions extends CredentialOptions {
  project?: string;
  url?: string;
  branch?: string;
  name?: string;
  test?: boolean;
  output?: string;
}

const withCredentials = (cmd: Command) =>
  cmd
    .option('--username <user>', 'HTTPS user name')
    .option('--password-stdin', 'read the HTTPS password (or access token used as one) from stdin')
    .option('--password-file <file>', 'read the HTTPS password from a file')
    .option('--token-file <file>', 'read an HTTPS bearer token from a file')
    .option('--ca-file <file>', 'PEM CA the HTTPS server\'s certificate is signed by')
    .option('--tls-client-cert-file <file>', 'PEM client certificate (with --tls-client-key-file)')
    .option('--tls-client-key-file <file>', 'PEM client key')
    .option('--ssh-key-file <file>', 'SSH private key (no passphrase)')
    .option('--known-hosts-file <file>', 'known_hosts lines of the SSH server');

const readText = (file: string, what: string) => readFile(file, 'utf8').catch(() => Promise.reject(usageError(`cannot read ${what} "${file}"`)));

const readStdin = async (io: Io) => (await readAll(io.stdin)).replace(/\r?\n$/, '');

/** The transport a URL speaks, as the server will judge it: https:// is https, ssh:// and user@host:path are ssh. */
export const authTypeOf = (url: string): 'https' | 'ssh' => (url.startsWith('https://') ? 'https' : 'ssh');

async function credentialsOf(io: Io, opts: CredentialOptions, authType: 'https' | 'ssh') {
  const https = {
    ...(opts.username !== undefined && { username: opts.username }),
    ...(opts.passwordStdin && { password: await readStdin(io) }),
    ...(opts.passwordFile !== undefined && { password: (await readText(opts.passwordFile, '--password-file')).trim() }),
    ...(opts.tokenFile !== undefined && { bearerToken: (await readText(opts.tokenFile, '--token-file')).trim() }),
    ...(opts.caFile !== undefined && { caCert: await readText(opts.caFile, '--ca-file') }),
    ...(opts.tlsClientCertFile !== undefined && { tlsClientCert: await readText(opts.tlsClientCertFile, '--tls-client-cert-file') }),
    ...(opts.tlsClientKeyFile !== undefined && { tlsClientKey: await readText(opts.tlsClientKeyFile, '--tls-client-key-file') }),
  };
  const ssh = {
    ...(opts.sshKeyFile !== undefined && { privateKey: await readText(opts.sshKeyFile, '--ssh-key-file') }),
    ...(opts.knownHostsFile !== undefined && { knownHosts: await readText(opts.knownHostsFile, '--known-hosts-file') }),
  };
  if (authType === 'https' && Object.keys(ssh).length) throw usageError('--ssh-key-file and --known-hosts-file are for ssh URLs');
  if (authType === 'ssh' && Object.keys(https).length) throw usageError('HTTPS credentials (--username, --password-*, --token-file, --ca-file, --tls-*) are for https URLs');
  if (authType === 'ssh') return Object.keys(ssh).length ? { sshAuth: ssh as { privateKey: string; knownHosts?: string } } : {};
  return Object.keys(https).length ? { httpsAuth: https } : {};
}

const repoTable = (app: App, items: RepoInfo[]) =>
  renderTable(
    [
      { header: 'id', value: (r) => r.id },
      { header: 'project', value: (r) => r.projectId },
      { header: 'name', value: (r) => r.name },
      { header: 'url', value: (r) => r.repoURL },
      { header: 'auth', value: (r) => r.authType },
      { header: 'branch', value: (r) => r.defaultBranch },
      { header: 'status', value: (r) => r.validationStatus },
    ],
    items,
    tableOptions(app.io),
  );

const repoDetails = (app: App, r: RepoInfo) =>
  renderDetails(
    [
      ['Id', r.id],
      ['Project', r.projectId],
      ['Name', r.name],
      ['URL', r.repoURL],
      ['Auth', r.authType],
      ['Default branch', r.defaultBranch],
      ['Status', r.validationMessage ? `${r.validationStatus}: ${r.validationMessage}` : r.validationStatus],
      ['Created', `${r.createdAt} by ${r.createdBy}`],
      ['Updated', r.updatedAt ? `${r.updatedAt} by ${r.updatedBy ?? '-'}` : '-'],
    ],
    tableOptions(app.io),
  );

/** `portico repo list|get|add|update|delete|test`: the Git repositories projects deploy to (§13). */
export function registerRepo(program: Command, app: App): void {
  const repo = program.command('repo').description('Git repositories projects deploy to in the gitops and hybrid modes');

  // Without -p the list already spans every project the caller may see; -A says so, as kubectl users type it.
  withAllProjects(withOutput(repo.command('list').description('repositories of the projects you may see').option('-p, --project <project>', 'one project\'s'))).action(
    async (opts: RepoOptions, cmd: Command) => {
      const { client } = await app.session(cmd);
      const res = await client.repositories.list(opts.project ? { projectId: opts.project } : {});
      print(app.io, formatOf(opts), res, () => (res.items.length ? repoTable(app, res.items) : 'No repositories.\n'));
    },
  );

  withOutput(repo.command('get').description('one repository (never its credentials)').argument('<id>', 'repository id')).action(async (id: string, opts: RepoOptions, cmd: Command) => {
    const { client } = await app.session(cmd);
    const found = await client.repositories.get(id);
    print(app.io, formatOf(opts), found, () => repoDetails(app, found));
  });

  withOutput(
    withCredentials(
      repo
        .command('add')
        .description('register a repository for a project (credentials from files or stdin)')
        .argument('<name>', 'display name (3 to 100 characters)')
        .requiredOption('-p, --project <project>', 'the project that deploys to it')
        .requiredOption('--url <url>', 'https://…, ssh://… or git@host:path')
        .option('--branch <branch>', 'default branch', 'main')
        .option('--test', 'test the connection once registered (exit 1 when it fails)'),
    ),
  ).action(async (name: string, opts: RepoOptions, cmd: Command) => {
    const authType = authTypeOf(opts.url!);
    const body: CreateRepositoryInput = { name, projectId: opts.project!, repoURL: opts.url!, authType, defaultBranch: opts.branch, ...(await credentialsOf(app.io, opts, authType)) };
    const { client } = await app.session(cmd);
    const created = await client.repositories.create(body);
    if (!opts.test) return print(app.io, formatOf(opts), created, () => `repository "${created.name}" registered as ${created.id}\n`);
    app.io.out(`repository "${created.name}" registered as ${created.id}\n`);
    await reportTest(app, await client.repositories.test(created.id));
  });

  withCredentials(
    repo
      .command('update')
      .description('change a repository; credentials given replace the stored ones of that transport')
      .argument('<id>', 'repository id')
      .option('--name <name>', 'display name')
      .option('--url <url>', 'https://…, ssh://… or git@host:path')
      .option('--branch <branch>', 'default branch'),
  ).action(async (id: string, opts: RepoOptions, cmd: Command) => {
    const { client } = await app.session(cmd);
    const authType = opts.url ? authTypeOf(opts.url) : (await client.repositories.get(id)).authType === 'ssh' ? 'ssh' : 'https';
    const change: UpdateRepositoryInput = {
      ...(opts.name !== undefined && { name: opts.name }),
      ...(opts.url !== undefined && { repoURL: opts.url, authType }),
      ...(opts.branch !== undefined && { defaultBranch: opts.branch }),
      ...(await credentialsOf(app.io, opts, authType)),
    };
    if (Object.keys(change).length === 0) throw usageError('nothing to change: give --name, --url, --branch or credentials');
    await client.repositories.update(id, change);
    app.io.out(`repository ${id} updated\n`);
  });

  repo
    .command('delete')
    .description('remove a repository and its credentials (refused while instances deploy through it)')
    .argument('<id>', 'repository id')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const { client } = await app.session(cmd);
      await client.repositories.delete(id);
      app.io.out(`repository ${id} deleted\n`);
    });

  withOutput(repo.command('test').description('contact the remote with the stored credentials (exit 1 when it fails)').argument('<id>', 'repository id')).action(
    async (id: string, opts: RepoOptions, cmd: Command) => {
      const { client } = await app.session(cmd);
      const result = await client.repositories.test(id);
      if (formatOf(opts) !== 'table') print(app.io, formatOf(opts), result, () => '');
      else await reportTest(app, result);
      if (!result.valid && formatOf(opts) !== 'table') throw new CliError(result.message, ExitCode.no);
    },
  );
}

async function reportTest(app: App, result: { valid: boolean; message: string }): Promise<void> {
  if (!result.valid) throw new CliError(`connection test failed: ${result.message}`, ExitCode.no);
  app.io.out(`connection test passed: ${result.message}\n`);
}
