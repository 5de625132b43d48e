// bench/audit: what the audit trail costs. Prints one table with the OSS build beside the Enterprise build in
// the same run (same mutations, same machine), then reads over 1,000,000 audit rows. Targets are the issue's:
// mutations with audit ≥ 70% of OSS throughput and < 2 ms added p99; user + last 24 h page 1 p99 < 30 ms;
// export ≥ 50k rows/s with server RSS growth < 50 MB. The machine may be shared: the load average is printed.
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startChild } from '../lib/child.mjs';
import { cores } from '../lib/machine.mjs';
import { fmt, printTable } from '../lib/table.mjs';
import { drain, mutationLoad, sequentialGets } from './mutations.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const durationMs = Number(process.env.BENCH_DURATION_MS ?? 8000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 8);
const rows = Number(process.env.BENCH_AUDIT_ROWS ?? 1_000_000);
// BENCH_CPU_PROF=dir: each server writes a V8 CPU profile there when it stops; BENCH_SERVER_ARGS: other node
// flags for the servers (e.g. "--expose-gc --import=./count-queries.mjs").
const profileDir = process.env.BENCH_CPU_PROF;
const load = () => loadavg().map((n) => n.toFixed(1)).join(' ');

async function mutations(edition) {
  const server = startChild(here('./server.mjs'), [], { BENCH_EDITION: edition, BENCH_PROJECTS: String(connections) }, profileDir ? { execArgv: ['--expose-gc', '--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : process.env.BENCH_SERVER_ARGS ? { execArgv: process.env.BENCH_SERVER_ARGS.split(' ') } : {});
  const info = await server.ready;
  const cpuBefore = await server.request({ cmd: 'cpu' });
  const t0 = performance.now();
  const result = await mutationLoad({ url: `http://127.0.0.1:${info.port}`, token: info.token, projectPrefix: info.projectPrefix, connections, durationMs });
  const cpuAfter = await server.request({ cmd: 'cpu' });
  // Server CPU over the whole load (warm-up included) per mutation answered in it, at the measured rate.
  const mutationsRun = (result.rps * (performance.now() - t0)) / 1000;
  result.cpuPerMutationUs = (cpuAfter.user - cpuBefore.user + cpuAfter.system - cpuBefore.system) / mutationsRun;
  return { server, info, result };
}

console.log(`load average before: ${load()} (${cores} cores)`);
const oss = await mutations('oss');
await oss.server.stop();
const ee = await mutations('enterprise');
const recorded = await ee.server.request({ cmd: 'count' });

console.log(`seeding ${fmt(rows)} audit rows …`);
const seeded = await ee.server.request({ cmd: 'seed', rows });
const url = `http://127.0.0.1:${ee.info.port}`;
const from = encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString());
const query = await sequentialGets({ url, token: ee.info.token, paths: Array.from({ length: 20 }, (_, u) => `/api/v1/audit/events?userId=user-${u * 5}&from=${from}`) });

await ee.server.request({ cmd: 'rss-start' });
const exported = await drain({ url, token: ee.info.token, path: '/api/v1/audit/events/export?format=ndjson' });
const rss = await ee.server.request({ cmd: 'rss-stop' });
const csv = await drain({ url, token: ee.info.token, path: '/api/v1/audit/events/export?format=csv' });
await ee.server.stop();

const o = oss.result;
const e = ee.result;
const ok = (pass) => (pass ? 'ok' : 'MISSED');
const share = e.rps / o.rps;
const exportRate = exported.lines / exported.seconds;
const csvRate = (csv.lines - 1) / csv.seconds;
printTable(
  `bench/audit — ${connections} connections × ${durationMs / 1000} s of bind+unbind per build; ${fmt(rows)} rows seeded in ${fmt(seeded.ms / 1000, 1)} s; load average after: ${load()} (${cores} cores)`,
  ['measurement', 'OSS build', 'Enterprise (audit on)', 'ratio / delta', 'target', ''],
  [
    ['mutations/s (POST+DELETE binding)', fmt(o.rps), fmt(e.rps), `${fmt(100 * share, 1)}%`, '≥ 70%', ok(share >= 0.7)],
    ['mutation p50', `${fmt(o.p50, 2)} ms`, `${fmt(e.p50, 2)} ms`, `+${fmt(e.p50 - o.p50, 2)} ms`, '', ''],
    ['mutation p99', `${fmt(o.p99, 2)} ms`, `${fmt(e.p99, 2)} ms`, `+${fmt(e.p99 - o.p99, 2)} ms`, '< 2 ms added', ok(e.p99 - o.p99 < 2)],
    ['server CPU per mutation', `${fmt(o.cpuPerMutationUs)} µs`, `${fmt(e.cpuPerMutationUs)} µs`, `+${fmt(e.cpuPerMutationUs - o.cpuPerMutationUs)} µs`, '', ''],
    ['failed / unexpected answers', `${o.errors} / ${o.unexpected}`, `${e.errors} / ${e.unexpected}`, '', '0', ok(o.errors + o.unexpected + e.errors + e.unexpected === 0)],
    ['audit events written during the run', '', fmt(recorded.count), '', '', ''],
    [`GET /audit/events?userId&from=24h ago (${fmt(rows)} rows)`, '', `p50 ${fmt(query.p50, 2)} ms`, '', '', ''],
    ['  … p99', '', `${fmt(query.p99, 2)} ms`, '', '< 30 ms', ok(query.p99 < 30 && query.unexpected === 0)],
    ['export NDJSON, all rows', '', `${fmt(exportRate)} rows/s`, `${fmt(exported.lines)} rows, ${fmt(exported.bytes / 2 ** 20)} MiB`, '≥ 50k rows/s', ok(exportRate >= 50_000 && exported.lines >= rows)],
    ['  … server RSS growth during export', '', `${fmt(rss.growth / 2 ** 20, 1)} MiB`, `${fmt(rss.before / 2 ** 20)} → max ${fmt(rss.max / 2 ** 20)} MiB`, '< 50 MB', ok(rss.growth < 50e6)],
    ['export CSV, all rows', '', `${fmt(csvRate)} rows/s`, `${fmt(csv.lines - 1)} rows`, '', ''],
  ],
);
