// Benchmark child for bench/compliance: the Enterprise server with a throwaway license that has the `compliance`
// feature, on a fresh PostgreSQL schema (the violation history writes there), over an embedded cluster loaded
// with Gatekeeper's CRDs, the four native templates and the generated platform (platform.mjs). The simulated kro
// walks every instance to its final state before the Enterprise modules start, so the audit is measured on a
// quiet cluster. Answers IPC requests:
//   settle  — audit passes until one writes nothing, then waits until the history in PostgreSQL holds every
//             violation in force (the same number per enforcement action as the index);
//   audit   — one pass over the unchanged cluster (what the periodic audit costs);
//   rejudge — changes one constraint's enforcement (dryrun ⇄ warn) and times the pass that follows, which judges
//             every object again (AuditReport.judged says so), as after any constraint change.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createLogger, createPortico, loadConfig } from '../../packages/core/dist/index.js';
import { createServer } from '../../packages/server/dist/index.js';
import { createEnterprise, createEnterpriseModules, enterprisePlugin } from '../../packages/enterprise/dist/index.js';
import { writeManifests } from './platform.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const size = JSON.parse(process.env.BENCH_SIZE);
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const features = process.env.BENCH_FEATURES ?? 'compliance';
const schema = `bench_compliance_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
const ADMIN_PASSWORD = 'bench-admin-password';
const work = mkdtempSync(join(tmpdir(), 'bench-compliance-'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const t0 = performance.now();
const since = () => Math.round(performance.now() - t0);

await writeManifests(join(work, 'manifests'), size);
const gatekeeper = ['gatekeeper-crds.yaml', 'templates.yaml'].map((f) => here(`../../examples/catalog/compliance/${f}`));
const config = loadConfig({
  PORTICO_PROFILE: 'development',
  PORTICO_CLUSTER: 'embedded',
  PORTICO_KV: 'memory',
  PORTICO_DATA_DIR: join(work, 'data'),
  PORTICO_MANIFESTS: [...gatekeeper, join(work, 'manifests')].join(','),
  PORTICO_KRO_STEP_MS: '0',
  ADMIN_PASSWORD,
  LOG_LEVEL: 'warn',
  PORTICO_RATE_LIMITS: '0', // the benchmark measures throughput, not the limiter
});
const logger = createLogger('warn');
const portico = await createPortico({ config, logger });
const manifestsMs = since();
// The simulated kro's timers are unref'd: hold the event loop open while it walks the instances.
const keepAlive = setInterval(() => {}, 1000);
await portico.cluster.controller.settle();
clearInterval(keepAlive);
const kroMs = since() - manifestsMs;

// As the Enterprise bin wires it (audit trail included), with a license that has the `compliance` feature (BENCH_FEATURES).
const licenseFile = join(work, 'license.jwt');
const issue = here('../../examples/enterprise/issue-license.mjs');
writeFileSync(licenseFile, execFileSync(process.execPath, [issue, `--features=${features}`, '--expires=+30d'], { encoding: 'utf8' }).trim());
const keys = here('../../examples/enterprise/throwaway-public.jwks.json');
const ee = await createEnterprise({ portico, logger, config: { databaseUrl, schema, licenseKeysFile: keys, licenseFile } });
await ee.database.migrated();
const modules = createEnterpriseModules(ee, portico, logger);
const compliance = modules.find((m) => m.simulator);
if (!compliance) throw new Error('no simulated Gatekeeper: the compliance module did not start one on the embedded cluster');
await compliance.ready;
const plugin = enterprisePlugin(ee, modules);
const server = createServer(portico, { plugins: [plugin] });
const { port } = await server.listen('127.0.0.1', 0);
const { token } = await portico.auth.localLogin({ username: 'admin', password: ADMIN_PASSWORD }, { ip: '127.0.0.1' });

const direct = new pg.Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
await direct.connect();
const { simulator, index } = compliance;

/** Active history rows per enforcement action, and the same count over the index's violations in force. */
async function historyMatchesIndex() {
  const { rows } = await direct.query(`SELECT enforcement_action AS action, count(*)::int AS n FROM violation_history WHERE status = 'active' GROUP BY 1`);
  const stored = Object.fromEntries(rows.map((r) => [r.action, r.n]));
  const inForce = {};
  for (const v of index.violations()) inForce[v.enforcementAction] = (inForce[v.enforcementAction] ?? 0) + 1;
  return ['deny', 'warn', 'dryrun'].every((a) => (stored[a] ?? 0) === (inForce[a] ?? 0));
}

const handlers = {
  async settle({ timeoutMs }) {
    const start = performance.now();
    const left = () => timeoutMs - (performance.now() - start);
    let report;
    let passes = 0;
    do {
      report = await simulator.audit();
      passes++;
    } while (report.written > 0 && left() > 0);
    while (!(await historyMatchesIndex()) && left() > 0) await sleep(100);
    const listed = index.violations();
    const instances = new Set(listed.filter((v) => v.resource.namespace).map((v) => `${v.resource.namespace}/${v.resource.name}`));
    return { ok: left() > 0, ms: performance.now() - start, passes, report, listed: listed.length, resourcesListed: instances.size };
  },
  audit: () => simulator.audit(),
  async rejudge({ round }) {
    const changeable = index.constraints().filter((c) => c.spec?.enforcementAction !== 'deny');
    const constraint = changeable[(round * 7) % changeable.length];
    const next = constraint.spec.enforcementAction === 'warn' ? 'dryrun' : 'warn';
    await portico.cluster.patch(index.constraintRef(constraint.kind), constraint.metadata.name, { spec: { enforcementAction: next } });
    // Watch events arrive on the next turns of the event loop; the simulator then rebuilds its constraints and
    // schedules a pass 50 ms later. This pass runs first, and is the one that judges everything again.
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    const report = await simulator.audit();
    return { ...report, constraint: `${constraint.kind}/${constraint.metadata.name}`, enforcementAction: next };
  },
};

process.on('message', async (m) => {
  if (m === 'stop') {
    await server.close();
    await plugin.stop?.();
    await direct.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => {});
    await direct.end();
    await portico.stop();
    rmSync(work, { recursive: true, force: true });
    process.exit(0);
  }
  if (m && handlers[m.cmd]) {
    try {
      process.send({ id: m.id, result: await handlers[m.cmd](m) });
    } catch (err) {
      process.send({ id: m.id, result: { error: String(err?.stack ?? err) } });
    }
  }
});
process.send({ port, token, schema, startMs: since(), manifestsMs, kroMs, features });
