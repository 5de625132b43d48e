// Benchmark child for bench/audit: the OSS server, or the Enterprise server with the audit trail on a fresh
// PostgreSQL schema, over the same embedded cluster and sample catalog. Answers IPC requests: `seed` (bulk audit
// rows), `rss-start`/`rss-stop` (peak RSS while an export runs).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createLogger, createPortico, loadConfig } from '../../packages/core/dist/index.js';
import { createServer } from '../../packages/server/dist/index.js';
import { seedAuditRows } from './seed.mjs';

const edition = process.env.BENCH_EDITION ?? 'oss';
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_audit_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
const ADMIN_PASSWORD = 'bench-admin-password';
// The embedded cluster stands in for the Kubernetes API, whose writes land in etcd on other machines. On this one
// machine its group-committed fdatasync would queue on the same disk as PostgreSQL's WAL flushes and slow the
// Enterprise run for a reason production does not have, so its files go to memory where there is /dev/shm
// (BENCH_DATA_DIR to choose). Both builds get the same.
const dataParent = process.env.BENCH_DATA_DIR ?? (existsSync('/dev/shm') ? '/dev/shm' : tmpdir());
const dataDir = mkdtempSync(join(dataParent, 'bench-audit-data-'));

const config = loadConfig({
  PORTICO_PROFILE: 'development',
  PORTICO_CLUSTER: 'embedded',
  PORTICO_KV: 'memory',
  PORTICO_DATA_DIR: dataDir,
  PORTICO_MANIFESTS: fileURLToPath(new URL('../../examples/catalog', import.meta.url)),
  ADMIN_PASSWORD,
  LOG_LEVEL: 'warn',
  PORTICO_RATE_LIMITS: '0', // the benchmark measures throughput, not the limiter
});
const logger = createLogger('warn');
const portico = await createPortico({ config, logger });

let plugin;
if (edition === 'enterprise') {
  // As the Enterprise bin wires it: the Enterprise module with a license that has every feature, the audit
  // trail among its modules, on a fresh schema (migrated before the load starts).
  const { createEnterprise, createEnterpriseModules, enterprisePlugin } = await import('../../packages/enterprise/dist/index.js');
  const licenseFile = join(mkdtempSync(join(tmpdir(), 'bench-audit-')), 'license.jwt');
  const issue = fileURLToPath(new URL('../../examples/enterprise/issue-license.mjs', import.meta.url));
  writeFileSync(licenseFile, execFileSync(process.execPath, [issue, '--features=audit,categories,views', '--expires=+30d'], { encoding: 'utf8' }).trim());
  const keys = fileURLToPath(new URL('../../examples/enterprise/throwaway-public.jwks.json', import.meta.url));
  const ee = await createEnterprise({ portico, logger, config: { databaseUrl, schema, licenseKeysFile: keys, licenseFile } });
  await ee.database.migrated();
  plugin = enterprisePlugin(ee, createEnterpriseModules(ee, portico, logger));
}
const server = createServer(portico, plugin ? { plugins: [plugin] } : {});
const { port } = await server.listen('127.0.0.1', 0);
const { token } = await portico.auth.localLogin({ username: 'admin', password: ADMIN_PASSWORD }, { ip: '127.0.0.1' });
// One project per load connection, so concurrent bindings never contend on one object's resourceVersion.
const admin = await portico.auth.verifyToken(token);
const projects = Number(process.env.BENCH_PROJECTS ?? 8);
for (let p = 0; p < projects; p++) await portico.projects.create(admin, { name: `bench-${p}` });

const direct = new pg.Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
if (edition === 'enterprise') await direct.connect();

let rssTimer;
let rss;
const handlers = {
  async seed({ rows }) {
    const t0 = performance.now();
    await seedAuditRows(direct, rows);
    return { ms: performance.now() - t0 };
  },
  'rss-start'() {
    global.gc?.();
    const before = process.memoryUsage().rss;
    rss = { before, max: before };
    rssTimer = setInterval(() => (rss.max = Math.max(rss.max, process.memoryUsage().rss)), 20);
    return {};
  },
  'rss-stop'() {
    clearInterval(rssTimer);
    return { ...rss, growth: rss.max - rss.before };
  },
};

process.on('message', async (m) => {
  if (m === 'stop') {
    await server.close();
    await plugin?.stop?.();
    if (edition === 'enterprise') {
      await direct.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => {});
      await direct.end();
    }
    await portico.stop();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }
  if (m && handlers[m.cmd]) process.send({ id: m.id, result: await handlers[m.cmd](m) });
});
process.send({ port, token, projectPrefix: 'bench-' });
