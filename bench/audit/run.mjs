// bench/audit: what the audit trail costs. Prints one table with the OSS build beside the Enterprise build in
// the same run (same mutations, same machine), then reads over 1,000,000 audit rows. Targets are the issue's:
// mutations with audit ≥ 70% of OSS throughput and < 2 ms added p99; user + last 24 h page 1 p99 < 30 ms;
// export ≥ 50k rows/s with server RSS growth < 50 MB. The machine may be shared: the load average is printed.
// Mutations are measured three ways per build: throughput at its best of BENCH_SATURATING_CONNECTIONS (64,128) in flight; the
// latency at rates offered to both builds alike (open loop, BENCH_PACED_RATES or 10/30/50% of the lower
// throughput); and the closed loop of BENCH_CONNECTIONS (8) this benchmark first measured. A third build, the OSS
// server with only the two waits any fail-closed trail has (floor-hook.mjs), runs beside them: what no trail avoids.
// A second OSS server takes its turns as well: what the measurements read when nothing is added.
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startChild } from '../lib/child.mjs';
import { cores, cpuWindow, runQueueWaitMs } from '../lib/machine.mjs';
import { fmt, printTable } from '../lib/table.mjs';
import { summarize } from '../lib/load.mjs';
import { stallSummary } from '../lib/stalls.mjs';
import { quantileDifferenceInterval } from '../lib/turn-bootstrap.mjs';
import { commitFloor } from './commit-floor.mjs';
import { drain, mutationLoad, pacedMutations, sequentialGets } from './mutations.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const durationMs = Number(process.env.BENCH_DURATION_MS ?? 8000);
/** The closed loop this benchmark always ran: 8 requests in flight, each waiting for the last (latency-bound). */
const connections = Number(process.env.BENCH_CONNECTIONS ?? 8);
/**
 * Throughput: enough requests in flight that the server, not the wait for an answer, sets the rate. A build that
 * waits on PostgreSQL twice per mutation needs more in flight to fill its idle time than one that does not, and
 * too many cost the other build its rate: each build is measured at each level (BENCH_SATURATING_CONNECTIONS,
 * "64,128") and its throughput is its best. Every level's rates are printed.
 */
const levels = (process.env.BENCH_SATURATING_CONNECTIONS ?? '64,128').split(',').map(Number);
/** Requests in flight at most, and projects they spread over, in the runs offered a fixed rate. */
const pacedInFlight = 64;
/**
 * Throughput is measured in rounds, the builds alternately (BENCH_ROUNDS, 3), each run half the duration:
 * on a shared machine a slow spell then falls on all builds rather than on one of them.
 */
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
/** What audit adds to a request: both builds offered the same rates (default: 10%, 30% and 50% of the lower throughput). */
const pacedRates = process.env.BENCH_PACED_RATES?.split(',').map(Number);
/**
 * Each rate is offered to the builds in turns (BENCH_PACED_SLICES, 8, the order rotating), BENCH_PACED_MS (32 s) in
 * all for each build, and each build's turns are joined. A p99 is the tail of a few hundred requests, and the
 * stalls that make it (a full garbage collection every few seconds, a checkpoint's sync) are few: in one 8-second
 * run per build, one stall more or less on one side moved the difference by 10–15 ms.
 */
const slices = Number(process.env.BENCH_PACED_SLICES ?? 8);
const pacedMs = Number(process.env.BENCH_PACED_MS ?? 32_000);
const rows = Number(process.env.BENCH_AUDIT_ROWS ?? 1_000_000);
// BENCH_CPU_PROF=dir: each server writes a V8 CPU profile there when it stops; BENCH_SERVER_ARGS: other node
// flags for the servers (e.g. "--expose-gc --import=./count-queries.mjs").
const profileDir = process.env.BENCH_CPU_PROF;
const load = () => loadavg().map((n) => n.toFixed(1)).join(' ');

async function start(edition) {
  const execArgv = profileDir ? { execArgv: ['--expose-gc', '--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : process.env.BENCH_SERVER_ARGS ? { execArgv: process.env.BENCH_SERVER_ARGS.split(' ') } : {};
  const server = startChild(here('./server.mjs'), [], { BENCH_EDITION: edition, BENCH_PROJECTS: String(Math.max(connections, pacedInFlight, ...levels)) }, execArgv);
  const info = await server.ready;
  return { server, info, target: { url: `http://127.0.0.1:${info.port}`, token: info.token, projectPrefix: info.projectPrefix } };
}

/** One closed-loop run; the CPU it cost per mutation, split by who used it. Each run binds its own role or users. */
async function closedLoop({ server, target }, conns, role, { ms = durationMs, users = 0 } = {}) {
  const cpuBefore = await server.request({ cmd: 'cpu' });
  // PostgreSQL's processes are listed again at the end: the pool opens backends during the load.
  const window = cpuWindow(['postgres']);
  const waited0 = runQueueWaitMs(server.child.pid);
  const result = await mutationLoad({ ...target, role, users, connections: conns, durationMs: ms });
  const cpu = window();
  const cpuAfter = await server.request({ cmd: 'cpu' });
  const waitedMs = runQueueWaitMs(server.child.pid) - waited0;
  // CPU over the whole load (warm-up included) per mutation answered in it, at the measured rate, split by who
  // used it: the server, PostgreSQL, this process (the load generator), the kernel's loopback packet processing
  // (softirq) and the rest of the machine.
  const mutationsRun = (result.rps * cpu.wallMs) / 1000;
  const serverMs = (cpuAfter.user - cpuBefore.user + cpuAfter.system - cpuBefore.system) / 1000;
  result.cpuPerMutationUs = (serverMs * 1000) / mutationsRun;
  result.waitedPerMutationUs = (waitedMs * 1000) / mutationsRun;
  if (!Number.isNaN(cpu.busyMs)) {
    result.split = [serverMs, cpu.namedMs, cpu.ownMs, cpu.softirqMs, cpu.other(serverMs)].map((ms) => (ms * 1000) / mutationsRun);
    result.busyCores = cpu.busyMs / cpu.wallMs;
  }
  result.wallMs = cpu.wallMs;
  return result;
}

/**
 * Rounds of one build as one run: rate, latencies and answers as `summarize` joins any measurements, CPU weighted by
 * the mutations of each round.
 */
function combined(runs) {
  const wallMs = runs.reduce((n, r) => n + r.wallMs, 0);
  const mutations = runs.map((r) => (r.rps * r.wallMs) / 1000);
  const total = mutations.reduce((a, b) => a + b, 0);
  const weighted = (f) => runs.reduce((n, r, i) => n + f(r) * mutations[i], 0) / total;
  return {
    ...summarize(runs),
    cpuPerMutationUs: weighted((r) => r.cpuPerMutationUs),
    waitedPerMutationUs: weighted((r) => r.waitedPerMutationUs),
    split: runs.every((r) => r.split) ? runs[0].split.map((_, j) => weighted((r) => r.split[j])) : undefined,
    busyCores: runs.reduce((n, r) => n + r.busyCores * r.wallMs, 0) / wallMs,
  };
}

console.log(`load average before: ${load()} (${cores} cores)`);
const oss = await start('oss');
const ossFew = await closedLoop(oss, connections, 'developer');
const ee = await start('enterprise');
const eeFew = await closedLoop(ee, connections, 'developer');
// The fail-closed floor: the OSS server with the trail's two waits on PostgreSQL and nothing else (floor-hook.mjs).
const floor = await start('floor');
// The control: the same OSS build started again, taking its turns like the others in every round. Nothing
// separates it from the first, so how far apart the two come out is this machine's noise: the resolution of every
// other ratio and difference in the table.
const ossAgain = await start('oss');
const manyRounds = [];
for (let r = 0; r < rounds; r++) {
  // Each run binds its own 50 users: a run stops wherever its load stops, binding or unbinding.
  const round = {};
  for (const [i, level] of levels.entries()) {
    const run = { ms: durationMs / 2, users: 50 * (r * levels.length + i) };
    round[level] = {
      oss: await closedLoop(oss, level, 'viewer', run),
      ee: await closedLoop(ee, level, 'viewer', run),
      floor: await closedLoop(floor, level, 'viewer', run),
      ossAgain: await closedLoop(ossAgain, level, 'viewer', run),
    };
  }
  manyRounds.push(round);
}
/** Each build's rounds at each level joined; its throughput is the level where it made the most. */
const byLevel = Object.fromEntries(['oss', 'ee', 'floor', 'ossAgain'].map((build) => [build, levels.map((level) => ({ level, ...combined(manyRounds.map((r) => r[level][build])) }))]));
const best = (build) => byLevel[build].reduce((a, b) => (b.rps > a.rps ? b : a));
const ossMany = best('oss');
const eeMany = best('ee');
const floorMany = best('floor');
const ossAgainMany = best('ossAgain');
const rates = pacedRates ?? [0.1, 0.3, 0.5].map((f) => Math.max(100, Math.round((f * Math.min(ossMany.rps, eeMany.rps)) / 100) * 100));
// Each paced slice also reads how late a bystander process's timer came meanwhile: the machine's own tail.
const bystander = startChild(here('../lib/bystander.mjs'));
await bystander.ready;
const pacedBuilds = { oss, ossAgain, ee, floor };
async function pacedAt(rate) {
  const names = Object.keys(pacedBuilds);
  const parts = Object.fromEntries(names.map((n) => [n, []]));
  const seen = Object.fromEntries(names.map((n) => [n, { late: [], elapsedMs: 0 }]));
  for (let slice = 0; slice < slices; slice++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(slice + i) % names.length];
      await bystander.request({ cmd: 'start' });
      parts[name].push(
        await pacedMutations({ ...pacedBuilds[name].target, projects: pacedInFlight, rate, role: 'platform-admin', durationMs: pacedMs / slices, warmupMs: 500 }),
      );
      const watched = await bystander.request({ cmd: 'take' });
      seen[name].late = seen[name].late.concat(watched.late);
      seen[name].elapsedMs += watched.elapsedMs;
    }
  }
  const added = (n) => quantileDifferenceInterval(parts.oss, parts[n]);
  return Object.fromEntries(
    names.map((n) => [n, { ...summarize(parts[n]), bystander: stallSummary(seen[n].late, seen[n].elapsedMs), ...(n === 'oss' ? {} : { p99Added: added(n) }) }]),
  );
}
const paced = [];
for (const rate of rates) {
  paced.push({ rate, ...(await pacedAt(rate)), pgAlone: await commitFloor({ databaseUrl: ee.info.databaseUrl, rate, durationMs }) });
}
await bystander.stop();
await oss.server.stop();
await ossAgain.server.stop();
await floor.server.stop();
const recorded = await ee.server.request({ cmd: 'count' });

console.log(`seeding ${fmt(rows)} audit rows …`);
const seeded = await ee.server.request({ cmd: 'seed', rows });
const url = `http://127.0.0.1:${ee.info.port}`;
const from = encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString());
const queryPaths = Array.from({ length: 20 }, (_, u) => `/api/v1/audit/events?userId=user-${u * 5}&from=${from}`);
// The yardstick of a list endpoint: a plain node:http server answering the very bytes of the first user's page,
// paged the same way just before Portico, so a slow spell of the machine shows in both rows.
const sameBytesChild = startChild(here('../scale/same-bytes.mjs'));
const sameBytes = `http://127.0.0.1:${(await sameBytesChild.ready).port}`;
const firstPage = await fetch(`${url}${queryPaths[0]}`, { headers: { authorization: `Bearer ${ee.info.token}` } });
if (firstPage.status !== 200) throw new Error(`GET ${queryPaths[0]}: ${firstPage.status} ${await firstPage.text()}`);
const pageBytes = Buffer.from(await firstPage.arrayBuffer());
await sameBytesChild.request({ body: pageBytes.toString('base64') });
const plainQuery = await sequentialGets({ url: sameBytes, token: ee.info.token, paths: queryPaths });
await sameBytesChild.stop();
const query = await sequentialGets({ url, token: ee.info.token, paths: queryPaths });

await ee.server.request({ cmd: 'rss-start' });
const exported = await drain({ url, token: ee.info.token, path: '/api/v1/audit/events/export?format=ndjson' });
const rss = await ee.server.request({ cmd: 'rss-stop' });
const csv = await drain({ url, token: ee.info.token, path: '/api/v1/audit/events/export?format=csv' });
await ee.server.stop();

const ok = (pass) => (pass ? 'ok' : 'MISSED');
const share = eeMany.rps / ossMany.rps;
const exportRate = exported.lines / exported.seconds;
const csvRate = (csv.lines - 1) / csv.seconds;
const ms = (v) => `${fmt(v, 2)} ms`;
const delta = (a, b, unit = ' ms', digits = 2) => `${b >= a ? '+' : '−'}${fmt(Math.abs(b - a), digits)}${unit}`;
/** The 90% interval of an added p99, from resampling the turns (turn-bootstrap.mjs). */
const interval = ({ low, high }) => `(90%: ${delta(0, low, '')} to ${delta(0, high)})`;
const cpuRows = (o, e, label) => [
  [`  server CPU per mutation${label}`, `${fmt(o.cpuPerMutationUs)} µs`, `${fmt(e.cpuPerMutationUs)} µs`, delta(o.cpuPerMutationUs, e.cpuPerMutationUs, ' µs', 0), '', ''],
  ...(Number.isNaN(o.waitedPerMutationUs)
    ? []
    : [['  server runnable, waiting for a core, per mutation', `${fmt(o.waitedPerMutationUs)} µs`, `${fmt(e.waitedPerMutationUs)} µs`, delta(o.waitedPerMutationUs, e.waitedPerMutationUs, ' µs', 0), '', '']]),
  ...(o.split && e.split
    ? [
        ['  CPU per mutation: server / PostgreSQL / load / net / other', `${o.split.map((u) => fmt(u)).join(' / ')} µs`, `${e.split.map((u) => fmt(u)).join(' / ')} µs`, '', '', ''],
        [`  cores busy (of ${cores})`, fmt(o.busyCores, 2), fmt(e.busyCores, 2), '', '', ''],
      ]
    : []),
];
const ossRuns = [ossFew, ...byLevel.oss, ...byLevel.ossAgain, ...paced.flatMap((p) => [p.oss, p.ossAgain])];
const eeRuns = [eeFew, ...byLevel.ee, ...paced.map((p) => p.ee)];
const floorRuns = [...byLevel.floor, ...paced.map((p) => p.floor)];
const failures = (list) => {
  const { errors, unexpected, unexpectedAnswers } = summarize(list);
  const answers = Object.entries(unexpectedAnswers).map(([answer, n]) => `${answer} ×${fmt(n)}`);
  return `${errors} / ${unexpected}${answers.length ? ` (${answers.join(', ')})` : ''}`;
};
const pgAloneErrors = paced.reduce((n, p) => n + p.pgAlone.errors + p.pgAlone.unexpected, 0);
printTable(
  `bench/audit — bind+unbind mutations, ${durationMs / 1000} s per run and build; ${fmt(rows)} rows seeded in ${fmt(seeded.ms / 1000, 1)} s; load average after: ${load()} (${cores} cores)`,
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
    ...levels.map((level, i) => {
      const [o, e] = [byLevel.oss[i], byLevel.ee[i]];
      return [`  … with ${level} in flight`, fmt(o.rps), fmt(e.rps), `${fmt((100 * e.rps) / o.rps, 1)}%`, '', ''];
    }),
    [
      '  … each round, at the best levels',
      manyRounds.map((r) => fmt(r[ossMany.level].oss.rps)).join(' / '),
      manyRounds.map((r) => fmt(r[eeMany.level].ee.rps)).join(' / '),
      manyRounds.map((r) => `${fmt((100 * r[eeMany.level].ee.rps) / r[ossMany.level].oss.rps)}%`).join(' / '),
      '',
      '',
    ],
    ...cpuRows(ossMany, eeMany, ''),
    ['  … the fail-closed floor (OSS + the two waits alone): mutations/s', '', `${fmt(floorMany.rps)} (${floorMany.level})`, `${fmt((100 * floorMany.rps) / ossMany.rps, 1)}%`, '', ''],
    ...(floorMany.split
      ? [['  … its CPU per mutation: server / PostgreSQL / load / net / other', '', `${floorMany.split.map((u) => fmt(u)).join(' / ')} µs`, '', '', '']]
      : []),
    ['  … a second OSS server (nothing added): mutations/s', fmt(ossAgainMany.rps), '', `${fmt((100 * ossAgainMany.rps) / ossMany.rps, 1)}% of the first`, '', ''],
    ...paced.flatMap(({ rate, oss: o, ossAgain: a, ee: e, floor: w, pgAlone: f }) => [
      [`latency at ${fmt(rate)} mutations/s offered to both: p50`, ms(o.p50), ms(e.p50), delta(o.p50, e.p50), '', ''],
      ['  … p99', ms(o.p99), ms(e.p99), `${delta(o.p99, e.p99)} ${interval(e.p99Added)}`, '< 2 ms added', ok(e.p99 - o.p99 < 2)],
      ['  … the fail-closed floor at that rate: p50 / p99', '', `${ms(w.p50)} / ${ms(w.p99)}`, `${delta(o.p50, w.p50)} / ${delta(o.p99, w.p99)} ${interval(w.p99Added)}`, '', ''],
      ['  … a second OSS server (nothing added): p50 / p99', `${ms(a.p50)} / ${ms(a.p99)}`, '', `${delta(o.p50, a.p50)} / ${delta(o.p99, a.p99)} ${interval(a.p99Added)}`, '', ''],
      ['  … PostgreSQL alone, one durable row per request: p50 / p99', '', `${ms(f.p50)} / ${ms(f.p99)}`, '', '', ''],
      ['  … an idle process\'s 2 ms timer meanwhile, late by: p99 / max', `${ms(o.bystander.p99)} / ${ms(o.bystander.max)}`, `${ms(e.bystander.p99)} / ${ms(e.bystander.max)}`, '', '', ''],
    ]),
    [`closed loop of ${connections} (each waits for its answer): mutations/s`, fmt(ossFew.rps), fmt(eeFew.rps), `${fmt((100 * eeFew.rps) / ossFew.rps, 1)}%`, '', ''],
    ['  … p50 / p99', `${ms(ossFew.p50)} / ${ms(ossFew.p99)}`, `${ms(eeFew.p50)} / ${ms(eeFew.p99)}`, `${delta(ossFew.p50, eeFew.p50)} / ${delta(ossFew.p99, eeFew.p99)}`, '', ''],
    ...cpuRows(ossFew, eeFew, ''),
    ['failed / unexpected answers (all runs)', failures(ossRuns), `${failures(eeRuns)}; floor ${failures(floorRuns)}`, '', '0', ok([...ossRuns, ...eeRuns, ...floorRuns].every((r) => r.errors + r.unexpected === 0))],
    ['audit events written during the run', '', fmt(recorded.count), '', '', ''],
    [`GET /audit/events?userId&from=24h ago (${fmt(rows)} rows)`, '', `p50 ${fmt(query.p50, 2)} ms`, '', '', ''],
    ['  … p99', '', `${fmt(query.p99, 2)} ms`, '', '< 30 ms', ok(query.p99 < 30 && query.unexpected === 0)],
    [`  … node:http answering the same ${fmt(pageBytes.length / 1024, 1)} KiB page: p50 / p99`, '', `${ms(plainQuery.p50)} / ${ms(plainQuery.p99)}`, '', '', ''],
    ['export NDJSON, all rows', '', `${fmt(exportRate)} rows/s`, `${fmt(exported.lines)} rows, ${fmt(exported.bytes / 2 ** 20)} MiB`, '≥ 50k rows/s', ok(exportRate >= 50_000 && exported.lines >= rows)],
    ['  … server RSS growth during export', '', `${fmt(rss.growth / 2 ** 20, 1)} MiB`, `${fmt(rss.before / 2 ** 20)} → max ${fmt(rss.max / 2 ** 20)} MiB`, '< 50 MB', ok(rss.growth < 50e6)],
    ['export CSV, all rows', '', `${fmt(csvRate)} rows/s`, `${fmt(csv.lines - 1)} rows`, '', ''],
  ],
);
console.log(
  `\nthroughput = a build's best rate with ${levels.join(' or ')} requests in flight, where the server, not the wait for an
answer, sets it (the busy cores row shows how busy the machine was). "What audit adds" compares both builds under
the very same offered load (open loop: request k is due at k / rate, latency counts from then), so a slower build is
not also offered less; the builds take ${slices} turns at each rate, ${fmt(pacedMs / 1000)} s in all for each, and a build's percentiles are over all its turns.
Beside each added p99 is its 90% interval from resampling whole turns (a stall falls on a turn, not on one request).
"A second OSS server" is the same OSS build started again, taking its turns like the others: nothing is added, so
what it shows is this measurement's own noise on this machine, the resolution of every other added p99. The closed
loop of ${connections} is the measurement this benchmark printed first: there each request waits for the previous
answer, so a build's rate is ${connections} / its latency and every round trip to PostgreSQL lowers it directly.
"PostgreSQL alone" offers the same rate to this PostgreSQL with nothing of Portico in the way: each request is one
row made durable, rows group-committed one statement at a time as the audit trail does. An audit trail that answers
only after its record is committed cannot add less than that${pgAloneErrors ? ` (${pgAloneErrors} of its requests failed)` : ''}.
"The fail-closed floor" is the OSS server with an operation hook that only waits as the trail must (floor-hook.mjs):
before the operation, for an answer from PostgreSQL that came after it arrived; after it, for a narrow row's commit,
statements shared by the trail's own line (createStatementLine). No event is built, redacted, chained or indexed: any audit trail
that keeps the trail's two promises (nothing runs while PostgreSQL is down, nothing acknowledged is missing) costs
at least this on this machine.
"An idle process's timer" is a bystander that only wakes every 2 ms: how late it woke is how long this machine kept
a ready process from running during that build's run, the part of a p99 no server code can remove.
The embedded cluster, standing in for the Kubernetes API, keeps its files in ${process.env.BENCH_DATA_DIR ?? '/dev/shm (where it exists)'}, so its
fsyncs do not queue behind PostgreSQL's on the one disk (BENCH_DATA_DIR to change).`,
);
