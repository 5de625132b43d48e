import { createClient, loginLocal, type PorticoClient } from '@portico/client';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPorticoServer, type PorticoProcess } from '../../../client/test/e2e/portico-server.js';
import { assertCliBuilt, runCli, type CliUser } from './run-cli.js';

/** A REAL server with its admin signed in twice: through the BUILT CLI (`ops`, its files under `root`) and the SDK. */
export interface AdminSession {
  server: PorticoProcess;
  /** A scratch directory of the test file's own: the homes and config files of its CLI users. */
  root: string;
  ops: CliUser;
  sdk: PorticoClient;
  /** Stops the server and removes `root`. */
  close(): Promise<void>;
}

/** Starts the server and signs its admin in; `prefix` names the scratch directory (`portico-cli-<what>-`). */
export async function startAdminSession(prefix: string): Promise<AdminSession> {
  assertCliBuilt();
  const server = await startPorticoServer();
  const root = await mkdtemp(join(tmpdir(), prefix));
  const close = async () => {
    await server.stop();
    await rm(root, { recursive: true, force: true });
  };
  try {
    const ops: CliUser = { home: join(root, 'ops'), configFile: join(root, 'ops', 'portico', 'config.yaml') };
    const sdk = createClient({ baseUrl: server.url, token: (await loginLocal(server.url, 'admin', server.adminPassword)).token });
    const login = await runCli(ops, ['login', server.url, '--username', 'admin', '--password-stdin'], { input: server.adminPassword });
    if (login.code !== 0) throw new Error(`portico login exited ${login.code}: ${login.stderr}`);
    return { server, root, ops, sdk, close };
  } catch (e) {
    await close();
    throw e;
  }
}
