import { afterAll, beforeAll } from 'vitest';
import { createLogger, type Portico } from '@portico/core';
import { apiAs, type ApiAs } from '../../../server/test/support/api-as.js';
import { startPorticoServer, type ClusterMode, type PorticoServer, type PorticoServerOptions } from '../../../server/test/support/cluster-modes.js';
import { createGatekeeperSimulator, type GatekeeperSimulator } from '../../src/compliance/index.js';
import { enterpriseCorePlugin } from '../../src/core-plugin.js';
import { createEnterprise, openEnterpriseDatabase, type Enterprise } from '../../src/enterprise.js';
import { createEnterpriseModules } from '../../src/modules.js';
import { enterprisePlugin, type EnterpriseModule } from '../../src/plugin.js';
import { createTestDatabase, type TestDatabase } from './db.js';
import { exampleKeysFile } from './license.js';

export interface EnterpriseServer extends PorticoServer {
  enterprise: Enterprise;
  /**
   * The simulated Gatekeeper working on this cluster: the one the compliance module runs beside the embedded
   * cluster, or (Kubernetes mode, `gatekeeper: true`) one running as its own API client, as Gatekeeper does.
   */
  gatekeeper?: GatekeeperSimulator;
  schema: string;
  database: TestDatabase;
}

export interface EnterpriseServerOptions extends Omit<PorticoServerOptions, 'plugin' | 'join'> {
  /** The PostgreSQL schema to use (another replica's); a fresh migrated one otherwise. */
  database?: TestDatabase;
  /** Another replica on the same cluster and schema. */
  join?: EnterpriseServer;
  /** A license token installed with POST /api/v1/license as the admin after start. */
  license?: string;
  now?: () => Date;
  /** Kubernetes mode: run a simulated Gatekeeper beside Portico on the fake API server. */
  gatekeeper?: boolean;
  /**
   * The modules to plug in, given those the edition assembles: a test replaces one with the same module over a
   * double of its source (it stops what it drops).
   */
  modules?: (assembled: EnterpriseModule[], enterprise: Enterprise, portico: Portico) => EnterpriseModule[];
}

/**
 * The Enterprise edition as `portico-server-enterprise` assembles it (the same plugin and modules), on either cluster
 * adapter, against the real PostgreSQL in a schema of its own, trusting the example license key.
 */
export async function startEnterpriseServer(opts: EnterpriseServerOptions): Promise<EnterpriseServer> {
  const database = opts.database ?? opts.join?.database ?? (await createTestDatabase());
  const ownsDatabase = !opts.database && !opts.join;
  let enterprise: Enterprise | undefined;
  let embeddedGatekeeper: GatekeeperSimulator | undefined;
  const config = { databaseUrl: database.url, schema: database.schema, licenseKeysFile: exampleKeysFile };
  // Opened before Portico, as the binary does: the audit hook goes to createPortico with it.
  const logger = opts.logger ?? createLogger('silent');
  const eeDatabase = openEnterpriseDatabase(config, logger, { connectTimeoutMs: 1_000, statementTimeoutMs: 3_000 });
  const plugin = async (portico: Portico) => {
    enterprise = await createEnterprise({ portico, config, database: eeDatabase, now: opts.now });
    await enterprise.database.migrated();
    const assembled = createEnterpriseModules(enterprise, portico, portico.logger);
    const modules = opts.modules?.(assembled, enterprise, portico) ?? assembled;
    embeddedGatekeeper = modules.flatMap((m) => ('simulator' in m && m.simulator ? [m.simulator as GatekeeperSimulator] : []))[0];
    return enterprisePlugin(enterprise, modules);
  };
  const corePlugins = [enterpriseCorePlugin({ pool: eeDatabase.pool, logger })];
  const server = await startPorticoServer({ ...opts, join: opts.join, adminPassword: opts.adminPassword ?? opts.join?.adminPassword, corePlugins, plugin }).catch(async (error: unknown) => {
    await eeDatabase.stop();
    if (ownsDatabase) await database.drop();
    throw error;
  });
  if (opts.license) {
    const applied = await apiAs(server.url, server.adminToken).post('/api/v1/license', { token: opts.license });
    if (applied.status !== 200) throw new Error(`installing the test license answered ${applied.status}: ${JSON.stringify(applied.body)}`);
  }
  let gatekeeper = embeddedGatekeeper;
  let ownGatekeeper: (GatekeeperSimulator & { start(): Promise<void> }) | undefined;
  if (opts.gatekeeper && opts.mode === 'kubernetes' && !opts.join) {
    ownGatekeeper = createGatekeeperSimulator(server.kubectl, { debounceMs: 10, installPollMs: 200 });
    await ownGatekeeper.start();
    gatekeeper = ownGatekeeper;
  }
  const closeServer = server.close;
  const close = async () => {
    await ownGatekeeper?.close();
    await closeServer();
    if (ownsDatabase) await database.drop();
  };
  return Object.assign(server, { enterprise: enterprise!, gatekeeper, schema: database.schema, database, close });
}

/** Starts an Enterprise server before the tests of the enclosing `describe` and closes it after them. */
export function useEnterprise(mode: ClusterMode, options: Omit<EnterpriseServerOptions, 'mode'> = {}): { ee: EnterpriseServer; admin: ApiAs } {
  let server: EnterpriseServer | undefined;
  let admin: ApiAs | undefined;
  beforeAll(async () => {
    server = await startEnterpriseServer({ ...options, mode });
    admin = apiAs(server.url, server.adminToken);
  }, 90_000);
  afterAll(async () => {
    await server?.close();
  });
  const later = <T extends object>(what: string, get: () => T | undefined) =>
    new Proxy({} as T, {
      get: (_, key) => {
        const value = get();
        if (!value) throw new Error(`${what} is not started yet`);
        return Reflect.get(value, key);
      },
    });
  return { ee: later('the Enterprise server', () => server), admin: later('the admin API', () => admin) };
}
