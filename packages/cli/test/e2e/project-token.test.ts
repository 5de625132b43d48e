import type { PorticoClient } from '@portico/client';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PorticoProcess } from '../../../client/test/e2e/portico-server.js';
import { startAdminSession, type AdminSession } from './admin-session.js';
import { runCli, type CliUser } from './run-cli.js';

// `portico project token create|list|delete` (§14): the BUILT binary against the REAL server. `create` prints the
// token alone on stdout (so a script captures it with $(…)) and never again; the token then drives the CLI through
// PORTICO_TOKEN with no login; `delete` ends it.

let session: AdminSession | undefined;
let server: PorticoProcess;
let root: string;
let ops: CliUser;
let sdk: PorticoClient;

beforeAll(async () => {
  session = await startAdminSession('portico-cli-token-');
  ({ server, root, ops, sdk } = session);
  await sdk.projects.create({ name: 'pipeline', destinations: [{ namespace: 'dev' }] });
});

afterAll(async () => {
  await session?.close();
});

/** A user with no config file at all: only what the environment gives. */
const fresh = (): CliUser => ({ home: join(root, 'ci'), configFile: join(root, 'ci', 'none.yaml') });

describe('portico project token', { timeout: 120_000 }, () => {
  it('create prints the token alone on stdout, once; it drives the CLI from PORTICO_TOKEN; list never shows it; delete ends it', async () => {
    const created = await runCli(ops, ['project', 'token', 'create', 'pipeline', 'developer', '--description', 'deploys from CI', '--expires-in', '30d']);
    expect(created.code).toBe(0);
    const token = created.stdout.trimEnd();
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(created.stderr).toMatch(/^token [0-9a-f-]{36} for role "developer" of project "pipeline", expires \S+Z; it is shown only now\n$/);

    const env = { PORTICO_SERVER: server.url, PORTICO_TOKEN: token };
    const deployed = await runCli(fresh(), ['instance', 'create', 'WebApp', 'from-ci', '-p', 'pipeline', '-n', 'dev', '--set', 'image=nginx'], { env });
    expect(deployed.stderr).toBe('');
    expect(deployed.code).toBe(0);
    expect((await sdk.instances.list({ project: 'pipeline' })).items.map((i) => i.name)).toEqual(['from-ci']);

    const list = await runCli(ops, ['project', 'token', 'list', 'pipeline', 'developer']);
    expect(list.code).toBe(0);
    const [header, row, ...rest] = list.stdout.trimEnd().split('\n');
    expect(header.split(/\s{2,}/)).toEqual(['ID', 'DESCRIPTION', 'ISSUED', 'EXPIRES', 'LAST USED', 'CREATED BY']);
    expect(row).toMatch(/^[0-9a-f-]{36}\s+deploys from CI\s+\d+s ago\s+\S+Z\s+\d+s ago\s+admin$/);
    expect(rest).toEqual([]);
    const asJson = await runCli(ops, ['project', 'token', 'list', 'pipeline', 'developer', '-o', 'json']);
    expect(`${list.stdout}${asJson.stdout}`).not.toContain(token);
    const [{ id }] = (JSON.parse(asJson.stdout) as { items: { id: string }[] }).items;

    const revoked = await runCli(ops, ['project', 'token', 'delete', 'pipeline', 'developer', id]);
    expect(revoked.stdout).toBe(`token ${id} of role "developer" in project "pipeline" revoked\n`);
    const after = await runCli(fresh(), ['instance', 'list', '-p', 'pipeline'], { env });
    expect(after.code).toBe(3);
    expect(after.stderr).toBe('error: the token given (--token or PORTICO_TOKEN) was refused: it is invalid, expired or revoked\n');
  });

  it('a token cannot make tokens, and -o json shows the whole answer of a creation', async () => {
    const created = await runCli(ops, ['project', 'token', 'create', 'pipeline', 'platform-admin', '-o', 'json']);
    const answer = JSON.parse(created.stdout) as { id: string; token: string; issuedAt: string };
    expect(Object.keys(answer).sort()).toEqual(['id', 'issuedAt', 'token']);
    const refused = await runCli(fresh(), ['project', 'token', 'create', 'pipeline', 'developer'], { env: { PORTICO_SERVER: server.url, PORTICO_TOKEN: answer.token } });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('FORBIDDEN: a project token cannot create, list or revoke tokens');
  });
});
