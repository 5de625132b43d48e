import { readFile } from 'node:fs/promises';
import type { SsoProvider, SsoProviderDetail } from '@portico/api';
import type { SsoProviderUpdate } from '@portico/client';
import type { Command } from 'commander';
import type { App } from '../app.js';
import { usageError } from '../exit-codes.js';
import { readAll } from '../io.js';
import { print } from '../output/render.js';
import { renderDetails, renderTable } from '../output/table.js';
import { askPassword, need } from '../prompts.js';
import { collect, formatOf, list, tableOptions, withOutput } from './shared.js';

/** What `create` and `update` take besides the name. */
interface ProviderFlags {
  displayName?: string;
  issuer?: string;
  clientId?: string;
  redirectUrl?: string;
  scope?: string[];
  public?: boolean;
  clientSecretStdin?: boolean;
  clientSecretFile?: string;
  authorizationUrl?: string;
  tokenUrl?: string;
  jwksUrl?: string;
  discovery?: boolean;
  output?: string;
}

const CALLBACK = '/api/v1/auth/oidc/callback';

const withProviderFlags = (cmd: Command) =>
  withOutput(
    cmd
      .option('--display-name <text>', 'what the sign-in page shows (default: the name)')
      .option('--issuer <url>', 'the OpenID issuer (https; http only for localhost)')
      .option('--client-id <id>', 'Portico\'s client ID at the provider')
      .option('--redirect-url <url>', `Portico's callback as the provider knows it (default: <server>${CALLBACK})`)
      .option('--scope <scope>', 'a scope to ask for; repeatable (default: openid profile email groups)', collect)
      .option('--public', 'a public client: no secret, PKCE only (token endpoint auth method none)')
      .option('--client-secret-stdin', 'read the client secret from standard input (first line)')
      .option('--client-secret-file <path>', 'read the client secret from a file')
      .option('--authorization-url <url>', 'endpoints set by hand, with --token-url and --jwks-url (no discovery)')
      .option('--token-url <url>', 'the token endpoint (with --authorization-url and --jwks-url)')
      .option('--jwks-url <url>', 'the signing keys (with --authorization-url and --token-url)'),
  );

/**
 * The client secret, from a file, standard input or a hidden prompt; undefined when none was given and none is
 * needed (`ask` false). It is never printed.
 */
async function clientSecretOf(app: App, opts: ProviderFlags, ask: boolean): Promise<string | undefined> {
  if (opts.clientSecretStdin && opts.clientSecretFile) throw usageError('give --client-secret-stdin or --client-secret-file, not both');
  if (opts.public && (opts.clientSecretStdin || opts.clientSecretFile)) throw usageError('a --public client has no secret');
  let secret: string | undefined;
  if (opts.clientSecretFile) {
    const path = opts.clientSecretFile;
    secret = (await readFile(path, 'utf8').catch(() => Promise.reject(usageError(`cannot read --client-secret-file "${path}"`)))).trim();
  } else if (opts.clientSecretStdin) {
    secret = (await readAll(app.io.stdin)).split(/\r?\n/)[0]!.trim();
  } else if (ask) {
    secret = await need(app.io, undefined, 'client secret (pass it with --client-secret-stdin or --client-secret-file, or use --public)', () => askPassword('Client secret'));
  }
  if (secret === '') throw usageError('the client secret is empty');
  return secret;
}

/** The three endpoints: all given, none given, or a usage error. */
function endpointsOf(opts: ProviderFlags): { authorizationURL: string; tokenURL: string; jwksURL: string } | undefined {
  const given = [opts.authorizationUrl, opts.tokenUrl, opts.jwksUrl].filter((v) => v !== undefined);
  if (given.length === 0) return undefined;
  if (given.length < 3) throw usageError('--authorization-url, --token-url and --jwks-url go together');
  return { authorizationURL: opts.authorizationUrl!, tokenURL: opts.tokenUrl!, jwksURL: opts.jwksUrl! };
}

const providerTable = (app: App, items: SsoProvider[], wide: boolean) =>
  renderTable(
    [
      { header: 'name', value: (p) => p.name },
      { header: 'display name', value: (p) => p.displayName },
      { header: 'issuer', value: (p) => p.issuerURL },
      { header: 'client id', value: (p) => p.clientID },
      { header: 'client', value: (p) => (p.tokenEndpointAuthMethod === 'none' ? 'public' : 'confidential') },
      { header: 'scopes', value: (p) => list(p.scopes), wide: true },
    ],
    items,
    tableOptions(app.io, wide),
  );

const providerDetails = (app: App, p: SsoProviderDetail) =>
  renderDetails(
    [
      ['Name', p.name],
      ['Display name', p.displayName],
      ['Issuer', p.issuerURL],
      ['Client ID', p.clientID],
      ['Client', p.tokenEndpointAuthMethod === 'none' ? 'public (PKCE only)' : `confidential (${p.tokenEndpointAuthMethod})`],
      ['Redirect URL', p.redirectURL],
      ['Scopes', list(p.scopes)],
      ['Endpoints', p.tokenURL ? `${p.authorizationURL} ${p.tokenURL} ${p.jwksURL}` : 'from discovery'],
      ['Sign-in URL', p.loginUrl],
    ],
    tableOptions(app.io),
  );

/** `portico sso provider …`: the sign-in providers a Server Admin manages at run time (§11.6). */
export function registerSso(program: Command, app: App): void {
  const provider = program.command('sso').description('single sign-on').command('provider').description('sign-in providers (OpenID Connect)');

  withOutput(provider.command('list').description('every sign-in provider, with its public facts')).action(async (opts: { output?: string }, cmd: Command) => {
    const { client } = await app.session(cmd, { auth: false });
    const items = await client.ssoProviders.list();
    print(app.io, formatOf(opts), items, {
      table: (wide) => (items.length ? providerTable(app, items, wide) : 'No sign-in providers.\n'),
      names: () => items.map((p) => `ssoprovider/${p.name}`),
    });
  });

  withOutput(provider.command('get').description('one sign-in provider (Server Admin)').argument('<name>', 'provider name')).action(
    async (name: string, opts: { output?: string }, cmd: Command) => {
      const { client } = await app.session(cmd);
      const found = await client.ssoProviders.get(name);
      print(app.io, formatOf(opts), found, () => providerDetails(app, found));
    },
  );

  withProviderFlags(provider.command('create').description('add a sign-in provider (Server Admin); asks for the client secret on a terminal').argument('<name>', 'DNS label: part of user ids (oidc:<name>:<sub>)')).action(
    async (name: string, opts: ProviderFlags, cmd: Command) => {
      if (opts.discovery) throw usageError('--discovery is for update');
      if (!opts.issuer) throw usageError('missing --issuer');
      if (!opts.clientId) throw usageError('missing --client-id');
      const endpoints = endpointsOf(opts);
      const { client, server } = await app.session(cmd);
      const clientSecret = await clientSecretOf(app, opts, !opts.public);
      const created = await client.ssoProviders.create({
        name, issuerURL: opts.issuer, clientID: opts.clientId, redirectURL: opts.redirectUrl ?? `${server}${CALLBACK}`,
        scopes: opts.scope ?? [], tokenEndpointAuthMethod: opts.public ? 'none' : 'client_secret_basic',
        ...(opts.displayName !== undefined && { displayName: opts.displayName }), ...(clientSecret !== undefined && { clientSecret }), ...endpoints,
      });
      print(app.io, formatOf(opts), created, () => `sign-in provider "${created.name}" created; every replica offers it within seconds\n`);
    },
  );

  withProviderFlags(provider.command('update').description('change a sign-in provider (Server Admin); what is not given stays, the secret too').argument('<name>', 'provider name'))
    .option('--discovery', 'forget the endpoints set by hand and use the issuer\'s discovery document')
    .action(async (name: string, opts: ProviderFlags, cmd: Command) => {
      const endpoints = endpointsOf(opts);
      if (opts.discovery && endpoints) throw usageError('--discovery and the endpoint options exclude each other');
      const { client } = await app.session(cmd);
      const current = await client.ssoProviders.get(name);
      const clientSecret = await clientSecretOf(app, opts, false);
      const method = opts.public ? 'none' : clientSecret !== undefined ? 'client_secret_basic' : current.tokenEndpointAuthMethod;
      if (method === 'client_secret_post') throw usageError(`"${name}" is configured in the environment and cannot be changed here`);
      const manual = opts.discovery ? undefined : (endpoints ?? (current.tokenURL ? { authorizationURL: current.authorizationURL!, tokenURL: current.tokenURL, jwksURL: current.jwksURL! } : undefined));
      const input: SsoProviderUpdate = {
        displayName: opts.displayName ?? current.displayName, issuerURL: opts.issuer ?? current.issuerURL, clientID: opts.clientId ?? current.clientID,
        redirectURL: opts.redirectUrl ?? current.redirectURL, scopes: opts.scope ?? current.scopes, tokenEndpointAuthMethod: method,
        ...(clientSecret !== undefined && { clientSecret }), ...manual,
      };
      const updated = await client.ssoProviders.update(name, input);
      print(app.io, formatOf(opts), updated, () => `sign-in provider "${name}" updated\n`);
    });

  provider
    .command('delete')
    .description('remove a sign-in provider (Server Admin): its sign-ins in progress end, sessions stay')
    .argument('<name>', 'provider name')
    .action(async (name: string, _opts: unknown, cmd: Command) => {
      const { client } = await app.session(cmd);
      await client.ssoProviders.delete(name);
      app.io.out(`sign-in provider "${name}" deleted\n`);
    });
}
