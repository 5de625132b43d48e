import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPorticoServer, type PorticoProcess } from '../../../client/test/e2e/portico-server.js';
import { assertCliBuilt, runCli, type CliUser } from './run-cli.js';

// `portico secret list|create|get|delete` (docs/cli.md, docs/secrets.md): the BUILT binary against the REAL
// server, in order, as a user's session would go. The values are distinctive strings so a test can check that
// they are printed where asked for (`--reveal`) and nowhere else.

let server: PorticoProcess;
let root: string;
let admin: CliUser;
let reader: CliUser;
const json = <T = any>(text: string) => JSON.parse(text) as T;
const ok = async (user: CliUser, args: string[], input?: string) => {
  const res = await runCli(user, args, { input });
  if (res.code !== 0) throw new Error(`portico ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
  return res.stdout;
};

const literalValue = 'lit-9f3a-VALUE';
const fileValue = 'file-7c21-VALUE';
const namedFileValue = 'named-5e08-VALUE';

beforeAll(async () => {
  assertCliBuilt();
  server = await startPorticoServer();
  root = await mkdtemp(join(tmpdir(), 'portico-cli-secrets-'));
  admin = { home: join(root, 'admin'), configFile: join(root, 'admin', 'portico', 'config.yaml') };
  reader = { home: join(root, 'reader'), configFile: join(root, 'reader', 'portico', 'config.yaml') };
  await ok(admin, ['login', server.url, '--username', 'admin', '--password-stdin'], `${server.adminPassword}\n`);
  await writeFile(join(root, 'token.txt'), fileValue);
  await writeFile(join(root, 'pw.txt'), namedFileValue);
});

afterAll(async () => {
  await server?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('portico secret list|create|get|delete', { timeout: 60_000 }, () => {
  it('create takes --from-literal and --from-file (key from the file name, or given) and prints only the keys', async () => {
    const out = await ok(admin, [
      'secret', 'create', 'dev/db', '-p', 'default',
      '--from-literal', `user=${literalValue}`,
      '--from-file', join(root, 'token.txt'),
      '--from-file', `password=${join(root, 'pw.txt')}`,
    ]);
    expect(out).toBe('secret "dev/db" created in project "default" (keys: password, token.txt, user)\n');
    for (const value of [literalValue, fileValue, namedFileValue]) expect(out).not.toContain(value);
  });

  it('create refuses a key given twice, a literal without "=", no data and an unreadable file (exit 2)', async () => {
    const twice = await runCli(admin, ['secret', 'create', 'dev/x', '-p', 'default', '--from-literal', 'k=a', '--from-literal', 'k=b']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('key "k" is given more than once');
    const bare = await runCli(admin, ['secret', 'create', 'dev/x', '-p', 'default', '--from-literal', literalValue]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).not.toContain(literalValue);
    expect((await runCli(admin, ['secret', 'create', 'dev/x', '-p', 'default'])).code).toBe(2);
    expect((await runCli(admin, ['secret', 'create', 'dev/x', '-p', 'default', '--from-file', join(root, 'missing.txt')])).code).toBe(2);
    const names = json<{ items: { name: string }[] }>(await ok(admin, ['secret', 'list', '-p', 'default', '-o', 'json'])).items.map((s) => s.name);
    expect(names).toEqual(['db']);
  });

  it('list shows namespace, name, type and keys, never the values', async () => {
    const table = await ok(admin, ['secret', 'list', '-p', 'default']);
    expect(table).toMatch(/^NAMESPACE\s+NAME\s+TYPE\s+KEYS\s+AGE\n/);
    expect(table).toMatch(/\ndev\s+db\s+Opaque\s+password, token\.txt, user\s+\d+s\n/);
    const asJson = await ok(admin, ['secret', 'list', '-p', 'default', '-o', 'json']);
    expect(json(asJson).items).toContainEqual(expect.objectContaining({ namespace: 'dev', name: 'db', keys: ['password', 'token.txt', 'user'] }));
    for (const value of [literalValue, fileValue, namedFileValue]) {
      expect(table).not.toContain(value);
      expect(asJson).not.toContain(value);
    }
  });

  it('get shows the keys and no values; --reveal prints the values', async () => {
    const plain = await ok(admin, ['secret', 'get', 'dev/db', '-p', 'default']);
    expect(plain).toMatch(/^name: dev\/db\ntype: Opaque\ncreated: \S+ by admin\n/);
    expect(plain).toContain('keys: password, token.txt, user\n');
    const plainJson = await ok(admin, ['secret', 'get', 'dev/db', '-p', 'default', '-o', 'json']);
    for (const value of [literalValue, fileValue, namedFileValue]) {
      expect(plain).not.toContain(value);
      expect(plainJson).not.toContain(value);
    }
    const revealed = await ok(admin, ['secret', 'get', 'dev/db', '-p', 'default', '--reveal']);
    const data = revealed.split('data:\n')[1] ?? '';
    expect(data.split('\n').filter(Boolean).sort()).toEqual([`  password: ${namedFileValue}`, `  token.txt: ${fileValue}`, `  user: ${literalValue}`]);
    expect(json(await ok(admin, ['secret', 'get', 'dev/db', '-p', 'default', '--reveal', '-o', 'json'])).data).toEqual({
      password: namedFileValue,
      'token.txt': fileValue,
      user: literalValue,
    });
  });

  it('a user whose role grants get but not reveal sees the secret and is refused its values (exit 3)', async () => {
    await ok(admin, ['account', 'create', 'rita', '--password-stdin'], 'rita-password-1\n');
    await ok(admin, ['project', 'role', 'create', 'default', 'secret-reader', '--policy', 'secrets/*, get, allow']);
    await ok(admin, ['project', 'role', 'bind', 'default', 'secret-reader', '--user', 'rita']);
    await ok(reader, ['login', server.url, '--username', 'rita', '--password-stdin'], 'rita-password-1\n');

    expect(await ok(reader, ['secret', 'list', '-p', 'default'])).toMatch(/\ndev\s+db\s+Opaque\s+password, token\.txt, user\s/);
    const plain = await ok(reader, ['secret', 'get', 'dev/db', '-p', 'default']);
    expect(plain).toContain('keys: password, token.txt, user\n');
    const refused = await runCli(reader, ['secret', 'get', 'dev/db', '-p', 'default', '--reveal']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/^error: FORBIDDEN/);
    for (const value of [literalValue, fileValue, namedFileValue]) {
      expect(plain).not.toContain(value);
      expect(refused.stdout + refused.stderr).not.toContain(value);
    }
    // nor may it delete
    expect((await runCli(reader, ['secret', 'delete', 'dev/db', '-p', 'default'])).code).toBe(3);
  });

  it('delete removes the secret: list no longer shows it and get exits 1 (not found)', async () => {
    expect(await ok(admin, ['secret', 'delete', 'dev/db', '-p', 'default'])).toBe('secret "dev/db" deleted from project "default"\n');
    expect(await ok(admin, ['secret', 'list', '-p', 'default'])).not.toMatch(/\bdb\b/);
    const gone = await runCli(admin, ['secret', 'get', 'dev/db', '-p', 'default']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('NOT_FOUND');
    expect((await runCli(admin, ['secret', 'delete', 'dev/db', '-p', 'default'])).code).toBe(1);
    expect((await runCli(admin, ['secret', 'get', 'db', '-p', 'default'])).code).toBe(2);
  });
});
