import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPorticoServer, type PorticoProcess } from '../../../client/test/e2e/portico-server.js';
import { assertCliBuilt, runCli, type CliResult, type CliUser } from './run-cli.js';

// `portico sso provider …` (§11.6), the BUILT binary against the REAL server: a Server Admin adds, reads,
// changes and removes a sign-in provider; the client secret goes in through stdin, a file or a prompt and never
// comes out, whatever the output format.
const SECRET = 'cli-client-secret-7f3a9c';
const OTHER_SECRET = 'rotated-client-secret-42b1';

let server: PorticoProcess;
let root: string;
let ops: CliUser;
const outputs: CliResult[] = [];

const run = async (args: string[], input?: string) => {
  const res = await runCli(ops, args, { input });
  outputs.push(res);
  return res;
};
const ok = async (args: string[], input?: string) => {
  const res = await run(args, input);
  if (res.code !== 0) throw new Error(`portico ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
  return res.stdout;
};

beforeAll(async () => {
  assertCliBuilt();
  server = await startPorticoServer();
  root = await mkdtemp(join(tmpdir(), 'portico-cli-sso-'));
  ops = { home: join(root, 'ops'), configFile: join(root, 'ops', 'portico', 'config.yaml') };
  await ok(['login', server.url, '--username', 'admin', '--password-stdin'], server.adminPassword);
});

afterAll(async () => {
  await server?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('portico sso provider', { timeout: 120_000 }, () => {
  it('create reads the secret from stdin; list and get show the provider for people and as JSON or YAML', async () => {
    expect(await ok(['sso', 'provider', 'create', 'dex', '--issuer', 'https://dex.example.com', '--client-id', 'portico', '--display-name', 'Company SSO', '--client-secret-stdin'], `${SECRET}\n`)).toBe(
      'sign-in provider "dex" created; every replica offers it within seconds\n',
    );
    const listed = JSON.parse(await ok(['sso', 'provider', 'list', '-o', 'json'])) as Array<Record<string, unknown>>;
    expect(listed).toEqual([
      {
        name: 'dex', displayName: 'Company SSO', loginUrl: '/api/v1/auth/oidc/login?provider=dex', issuerURL: 'https://dex.example.com', clientID: 'portico',
        redirectURL: `${server.url}/api/v1/auth/oidc/callback`, scopes: ['openid', 'profile', 'email', 'groups'], tokenEndpointAuthMethod: 'client_secret_basic',
      },
    ]);
    expect(await ok(['sso', 'provider', 'list'])).toMatch(/^NAME\s+DISPLAY NAME\s+ISSUER\s+CLIENT ID\s+CLIENT\n(.*\n)*dex\s+Company SSO\s+https:\/\/dex\.example\.com\s+portico\s+confidential\n/m);
    expect(await ok(['sso', 'provider', 'list', '-o', 'name'])).toBe('ssoprovider/dex\n');
    expect(await ok(['sso', 'provider', 'get', 'dex'])).toMatch(/Client:\s+confidential \(client_secret_basic\)\n(.*\n)*Endpoints:\s+from discovery\n/);
    expect(await ok(['sso', 'provider', 'get', 'dex', '-o', 'yaml'])).toContain('issuerURL: https://dex.example.com\n');
  });

  it('update changes what it is given and keeps the rest, the secret too; --public drops the secret, a file brings one back', async () => {
    expect(await ok(['sso', 'provider', 'update', 'dex', '--scope', 'openid', '--scope', 'email', '--authorization-url', 'https://dex.example.com/auth', '--token-url', 'https://dex.example.com/token', '--jwks-url', 'https://dex.example.com/keys'])).toBe(
      'sign-in provider "dex" updated\n',
    );
    const updated = JSON.parse(await ok(['sso', 'provider', 'get', 'dex', '-o', 'json']));
    expect(updated).toMatchObject({ displayName: 'Company SSO', clientID: 'portico', scopes: ['openid', 'email'], tokenEndpointAuthMethod: 'client_secret_basic', tokenURL: 'https://dex.example.com/token' });

    expect(JSON.parse(await ok(['sso', 'provider', 'update', 'dex', '--public', '--discovery', '-o', 'json']))).toMatchObject({ tokenEndpointAuthMethod: 'none' });
    expect(JSON.parse(await ok(['sso', 'provider', 'get', 'dex', '-o', 'json']))).not.toHaveProperty('tokenURL');
    const file = join(root, 'secret.txt');
    await writeFile(file, `${OTHER_SECRET}\n`);
    await ok(['sso', 'provider', 'update', 'dex', '--client-secret-file', file]);
    expect(JSON.parse(await ok(['sso', 'provider', 'get', 'dex', '-o', 'json']))).toMatchObject({ tokenEndpointAuthMethod: 'client_secret_basic', scopes: ['openid', 'email'] });
  });

  it('refuses what cannot work as usage errors (exit 2) before asking the server; the server\'s refusals keep their exit code', async () => {
    const noSecret = await run(['sso', 'provider', 'create', 'okta', '--issuer', 'https://okta.example.com', '--client-id', 'p']);
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toContain('--client-secret-stdin');
    expect((await run(['sso', 'provider', 'create', 'okta', '--issuer', 'https://okta.example.com', '--client-id', 'p', '--public', '--client-secret-stdin'], 'x\n')).code).toBe(2);
    expect((await run(['sso', 'provider', 'update', 'dex', '--token-url', 'https://dex.example.com/token'])).code).toBe(2);
    const taken = await run(['sso', 'provider', 'create', 'dex', '--issuer', 'https://dex.example.com', '--client-id', 'p', '--public']);
    expect(taken.code).not.toBe(0);
    expect(taken.stderr).toContain('already exists');
    const insecure = await run(['sso', 'provider', 'create', 'plain', '--issuer', 'http://idp.example.com', '--client-id', 'p', '--public']);
    expect(insecure.code).not.toBe(0);
    expect(insecure.stderr).toContain('issuerURL');
  });

  it('delete removes it, and no command ever printed the secret', async () => {
    expect(await ok(['sso', 'provider', 'delete', 'dex'])).toBe('sign-in provider "dex" deleted\n');
    expect(await ok(['sso', 'provider', 'list'])).toBe('No sign-in providers.\n');
    expect(outputs.length).toBeGreaterThan(15);
    for (const { stdout, stderr } of outputs) {
      expect(stdout + stderr).not.toContain(SECRET);
      expect(stdout + stderr).not.toContain(OTHER_SECRET);
    }
  });
});
