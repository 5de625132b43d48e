// bench/audit: what the audit trail costs. The OSS build and the Enterprise build (audit on, a fresh PostgreSQL
// schema) take the same bind/unbind mutations in one run on one machine; then the Enterprise build pages a filtered
// listing over 1,000,000 audit rows and exports them all. Prints one table with the targets: mutations with audit
// ≥ 70% of OSS throughput and < 2 ms added p99; user + last 24 h page 1 p99 < 30 ms; export ≥ 50k rows/s with
// server RSS growth < 50 MB. Needs `npm run build` and PostgreSQL (BENCH_DATABASE_URL).
//
// Throughput: each build at its best of BENCH_SATURATING_CONNECTIONS (64,128) mutations in flight, in BENCH_ROUNDS
// (3) rounds that alternate the builds, so a slow spell of a shared machine weighs on both. Latency: both builds
// offered the same rates (open loop, BENCH_PACED_RATES or 10/30/50% of the lower throughput), taking
// BENCH_PACED_SLICES (8) turns each, BENCH_PACED_MS (32 s) in all per build and rate. Other knobs:
// BENCH_DURATION_MS (8000: each throughput run takes half of it), BENCH_AUDIT_ROWS (1,000,000), BENCH_DATA_DIR.
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startChild } from '../lib/child.mjs';
import { cores } from '../lib/machine.mjs';
import { fmt, printTable } from '../lib/table.mjs';
import { summarize } from '../lib/load.mjs';
import { drain, mutationLoad, pacedMutations, sequentialGets } from './mutations.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const durationMs = Number(process.env.BENCH_DURATION_MS ?? 8000);
/**
 * Throughput needs enough requests in flight that the server, not the wait for an answer, sets the rate. A build
 * that waits on PostgreSQL twice per mutation needs more in flight to fill that wait than one that does not, and
 * too many cost the other build its rate: each build is measured at each level and its throughput is its best.
 */
const levels = (process.env.BENCH_SATURATING_CONNECTIONS ?? '64,128').split(',').map(Number);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
/** Requests in flight at most, and projects they spread over, at a fixed offered rate. */
const pacedInFlight = 64;
const pacedRates = process.env.BENCH_PACED_RATES?.split(',').map(Number);
/**
 * A p99 is the tail of a few hundred requests, made by a few stalls (a full garbage collection, a checkpoint's
 * sync): in one run per build, one stall more on one side decides the difference. The builds take turns at each
 * rate instead, the order rotating, and a build's percentiles are over all its turns.
 */
const slices = Number(process.env.BENCH_PACED_SLICES ?? 8);
const pacedMs = Number(process.env.BENCH_PACED_MS ?? 32_000);
const rows = Number(process.env.BENCH_AUDIT_ROWS ?? 1_000_000);
const load = () => loadavg().map((n) => n.toFixed(1)).join(' ');

async function start(edition) {
  const server = startChild(here('./server.mjs'), [], { BENCH_EDITION: edition, BENCH_PROJECTS: String(Math.max(pacedInFlight, ...levels)) });
  const info = await server.ready;
  return { server, info, target: { url: `http://127.0.0.1:${info.port}`, token: info.token, projectPrefix: info.projectPrefix } };
}

console.log(`load average before: ${load()} (${cores} cores)`);
const builds = { oss: await start('oss'), ee: await start('enterprise') };
const names = Object.keys(builds);

// Throughput: every round runs both builds at every level. Each run binds its own 50 users: a run stops wherever
// its load stops, a user bound or not.
const runs = Object.fromEntries(names.map((n) => [n, levels.map(() => [])]));
for (let r = 0; r < rounds; r++) {
  for (const [i, level] of levels.entries()) {
    for (const name of names) {
      runs[name][i].push(await mutationLoad({ ...builds[name].target, role: 'viewer', users: 50 * (r * levels.length + i), connections: level, durationMs: durationMs / 2 }));
    }
  }
}
const best = (name) => levels.map((level, i) => ({ level, ...summarize(runs[name][i]) })).reduce((a, b) => (b.rps > a.rps ? b : a));
const [ossMany, eeMany] = [best('oss'), best('ee')];
const rates = pacedRates ?? [0.1, 0.3, 0.5].map((f) => Math.max(100, Math.round((f * Math.min(ossMany.rps, eeMany.rps)) / 100) * 100));

// What audit adds to a request: the same offered rate, the builds in turns.
const paced = [];
for (const rate of rates) {
  const parts = Object.fromEntries(names.map((n) => [n, []]));
  for (let slice = 0; slice < slices; slice++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(slice + i) % names.length];
      parts[name].push(await pacedMutations({ ...builds[name].target, projects: pacedInFlight, rate, role: 'platform-admin', durationMs: pacedMs / slices, warmupMs: 500 }));
    }
  }
  paced.push({ rate, oss: summarize(parts.oss), ee: summarize(parts.ee) });
}
await builds.oss.server.stop();

const { server: ee, info } = builds.ee;
console.log(`seeding ${fmt(rows)} audit rows …`);
const seeded = await ee.request({ cmd: 'seed', rows });
const url = `http://127.0.0.1:${info.port}`;
const from = encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString());
const queryPaths = Array.from({ length: 20 }, (_, u) => `/api/v1/audit/events?userId=user-${u * 5}&from=${from}`);
// The yardstick of a list endpoint: a plain node:http server answering the very bytes of the first user's page,
// paged the same way just before Portico.
const sameBytesChild = startChild(here('../scale/same-bytes.mjs'));
const sameBytes = `http://127.0.0.1:${(await sameBytesChild.ready).port}`;
const firstPage = await fetch(`${url}${queryPaths[0]}`, { headers: { authorization: `Bearer ${info.token}` } });
if (firstPage.status !== 200) throw new Error(`GET ${queryPaths[0]}: ${firstPage.status} ${await firstPage.text()}`);
const pageBytes = Buffer.from(await firstPage.arrayBuffer());
await sameBytesChild.request({ body: pageBytes.toString('base64') });
const plainQuery = await sequentialGets({ url: sameBytes, token: info.token, paths: queryPaths });
await sameBytesChild.stop();
const query = await sequentialGets({ url, token: info.token, paths: queryPaths });

await ee.request({ cmd: 'rss-start' });
const exported = await drain({ url, token: info.token, path: '/api/v1/audit/events/export?format=ndjson' });
const rss = await ee.request({ cmd: 'rss-stop' });
const csv = await drain({ url, token: info.token, path: '/api/v1/audit/events/export?format=csv' });
await ee.stop();

const ok = (pass) => (pass ? 'ok' : 'MISSED');
const share = eeMany.rps / ossMany.rps;
const exportRate = exported.lines / exported.seconds;
const csvRate = (csv.lines - 1) / csv.seconds;
const ms = (v) => `${fmt(v, 2)} ms`;
const delta = (a, b) => `${b >= a ? '+' : '−'}${fmt(Math.abs(b - a), 2)} ms`;
const all = (name) => [...runs[name].flat(), ...paced.map((p) => p[name])];
const failures = (list) => {
  const { errors, unexpected, unexpectedAnswers } = summarize(list);
  const answers = Object.entries(unexpectedAnswers).map(([answer, n]) => `${answer} ×${fmt(n)}`);
  return `${errors} / ${unexpected}${answers.length ? ` (${answers.join(', ')})` : ''}`;
};
printTable(
  `bench/audit — bind+unbind mutations; ${fmt(rows)} rows seeded in ${fmt(seeded.ms / 1000, 1)} s; load average after: ${load()} (${cores} cores)`,
  ['measurement', 'OSS build', 'Enterprise (audit on)', 'ratio / delta', 'target', ''],
  [
    [
      `throughput: mutations/s at the best of ${levels.join(' / ')} in flight, ${rounds} alternated rounds`,
      `${fmt(ossMany.rps)} (${ossMany.level})`,
      `${fmt(eeMany.rps)} (${eeMany.level})`,
      `${fmt(100 * share, 1)}%`,
      '≥ 70%',
      ok(share >= 0.7),
    ],
    ...paced.flatMap(({ rate, oss: o, ee: e }) => [
      [`latency at ${fmt(rate)} mutations/s offered to both: p50`, ms(o.p50), ms(e.p50), delta(o.p50, e.p50), '', ''],
      ['  … p99', ms(o.p99), ms(e.p99), delta(o.p99, e.p99), '< 2 ms added', ok(e.p99 - o.p99 < 2)],
    ]),
    ['failed / unexpected answers (all runs)', failures(all('oss')), failures(all('ee')), '', '0', ok([...all('oss'), ...all('ee')].every((r) => r.errors + r.unexpected === 0))],
    [`GET /audit/events?userId&from=24h ago (${fmt(rows)} rows): p50`, '', ms(query.p50), '', '', ''],
    ['  … p99', '', ms(query.p99), '', '< 30 ms', ok(query.p99 < 30 && query.unexpected === 0)],
    [`  … node:http answering the same ${fmt(pageBytes.length / 1024, 1)} KiB page: p50 / p99`, '', `${ms(plainQuery.p50)} / ${ms(plainQuery.p99)}`, '', '', ''],
    ['export NDJSON, all rows', '', `${fmt(exportRate)} rows/s`, `${fmt(exported.lines)} rows, ${fmt(exported.bytes / 2 ** 20)} MiB`, '≥ 50k rows/s', ok(exportRate >= 50_000 && exported.lines >= rows)],
    ['  … server RSS growth during export', '', `${fmt(rss.growth / 2 ** 20, 1)} MiB`, `${fmt(rss.before / 2 ** 20)} → max ${fmt(rss.max / 2 ** 20)} MiB`, '< 50 MB', ok(rss.growth < 50e6)],
    ['export CSV, all rows', '', `${fmt(csvRate)} rows/s`, `${fmt(csv.lines - 1)} rows`, '', ''],
  ],
);
console.log(
  `throughput = a build's best rate with ${levels.join(' or ')} requests in flight, where the server, not the wait for an
answer, sets it. Latency compares both builds under the very same offered load (open loop: request k is due at
k / rate, and its latency counts from then), so a slower build is not also offered less; the builds take ${slices} turns at
each rate, ${fmt(pacedMs / 1000)} s in all for each, and a build's percentiles are over all its turns. Every audited mutation
waits for a PostgreSQL commit, so the added latency includes at least one durable commit on this machine's disk.
The embedded cluster, standing in for the Kubernetes API, keeps its files in ${process.env.BENCH_DATA_DIR ?? '/dev/shm (where it exists)'}, so its
fsyncs do not queue behind PostgreSQL's on the one disk (BENCH_DATA_DIR to change).`,
);
