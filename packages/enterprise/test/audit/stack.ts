import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger, createPortico, loadConfig } from '@portico/core';
import { createServer } from '@portico/server';
import { enterpriseCorePlugin } from '../../src/core-plugin.js';
import { createEnterprise, openEnterpriseDatabase } from '../../src/enterprise.js';
import { createEnterpriseModules } from '../../src/modules.js';
import { enterprisePlugin } from '../../src/plugin.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { exampleKeysFile, issueLicense } from '../support/license.js';

const sampleCatalog = fileURLToPath(new URL('../../../../examples/catalog', import.meta.url));

export interface AuditStack {
  url: string;
  /** The run's own migrated schema, reached directly (not through any proxy the server uses). */
  db: TestDatabase;
  adminPassword: string;
  login(username: string, password: string): Promise<string>;
  createAccount(adminToken: string, username: string, password: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The Enterprise server as its bin wires it (Portico over the embedded cluster with the sample catalog, the
 * Enterprise module with a license that has every feature, the audit trail), on a fresh schema of the real
 * PostgreSQL. `databaseUrl` lets a test put a TCP proxy between the server and PostgreSQL.
 */
export async function startAuditStack(opts: { databaseUrl?: string } = {}): Promise<AuditStack> {
  const db = await createTestDatabase();
  const dir = await mkdtemp(join(tmpdir(), 'portico-audit-'));
  const licenseFile = join(dir, 'license.jwt');
  await writeFile(licenseFile, issueLicense());
  const adminPassword = `admin-${randomUUID()}`;
  const logger = createLogger('silent');
  const config = loadConfig({
    PORTICO_PROFILE: 'development', PORTICO_DATA_DIR: join(dir, 'data'), PORTICO_MANIFESTS: sampleCatalog, ADMIN_PASSWORD: adminPassword,
    PORTICO_KRO_STEP_MS: '10', PORTICO_RATE_LIMITS: '0', PORTICO_KV: 'memory',
  });
  const eeConfig = { databaseUrl: opts.databaseUrl ?? db.url, schema: db.schema, licenseKeysFile: exampleKeysFile, licenseFile };
  const database = openEnterpriseDatabase(eeConfig, logger, { connectTimeoutMs: 1_000 });
  const portico = await createPortico({ config, logger, plugins: [enterpriseCorePlugin({ pool: database.pool, logger })] });
  const ee = await createEnterprise({ portico, logger, config: eeConfig, database });
  await ee.database.migrated();
  const plugin = enterprisePlugin(ee, createEnterpriseModules(ee, portico, logger));
  const server = createServer(portico, { plugins: [plugin] });
  const { port } = await server.listen('127.0.0.1', 0);
  const url = `http://127.0.0.1:${port}`;

  const login = async (username: string, password: string) => {
    const res = await fetch(`${url}/api/v1/auth/local/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
    if (res.status !== 200) throw new Error(`login of ${username} answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { token: string }).token;
  };
  return {
    url, db, adminPassword, login,
    async createAccount(adminToken, username, password) {
      const res = await fetch(`${url}/api/v1/accounts`, {
        method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ username, password, groups: [] }),
      });
      if (res.status !== 201) throw new Error(`creating ${username} answered ${res.status}: ${await res.text()}`);
    },
    async close() {
      await server.close();
      await plugin.stop?.();
      await portico.stop();
      await db.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
