// bench/ws: live status over WebSocket at scale. 2,000 clients across 50 projects (40 developers per project, one
// socket each, subscribed to instances); rounds of 1,000 instance status changes, each change one instance_update
// and one deploy_progress to the 40 sockets of its project (80,000 deliveries a round). Per round: deliveries/s,
// delivery latency (event timestamp, set where the event is published, → client receive; same host clock),
// server RSS peak, and who used the CPU. First two bursts (changes written as fast as the cluster takes them; the
// first also pays for compiling the code it runs), then paced rounds searching the highest rate whose p99 stays
// under the target, confirmed by a second round. With 1 server process (in-memory bus), then 2 on one Redis
// (clients split between them, changes made on the first). The clients run in BENCH_CLIENT_PROCS (2) child
// processes. Yardsticks measured in the same run: a plain node:http hello-world, and the raw TCP write rate of one
// process to 2,000 loopback sockets (the ceiling of any fan-out: one write per socket per flush). Needs the built
// packages (`npm run build`) and, for the 2-process scenario, Redis at BENCH_REDIS_ADDRESS (127.0.0.1:6379).
// Bounded: gives up after 175 s whatever happens.
// Knobs: BENCH_REPLICAS (1,2), BENCH_CHANGES (1000), BENCH_FIRST_RATE (500), BENCH_RATES=a,b,… (fixed rates
// instead of the search, to compare builds), BENCH_VERBOSE (server memory per round), BENCH_PROFILE=<dir>
// (.cpuprofile of servers and clients), BENCH_SERVER_NODE_ARGS (e.g. "--trace-gc"), BENCH_CORE_MODULE /
// BENCH_SERVER_MODULE (another build), BENCH_BURST_ONLY (the burst round alone on the first BENCH_REPLICAS setting,
// result over IPC: bench/scale),
// BENCH_BURST_WARMUP (with BENCH_BURST_ONLY: bursts run before the measured one).
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { startChild } from '../lib/child.mjs';
import { mergePairs, quantile } from '../lib/histogram.mjs';
import { load } from '../lib/load.mjs';
import { cores, cpuWindow } from '../lib/machine.mjs';
import { fmt, printTable } from '../lib/table.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const env = (name, fallback) => Number(process.env[name] ?? fallback);
const CHANGES = env('BENCH_CHANGES', 1000);
const CLIENT_PROCS = env('BENCH_CLIENT_PROCS', 2);
const REPLICAS = (process.env.BENCH_REPLICAS ?? '1,2').split(',').map(Number);
/** The rate search: start here, ×RATE_STEP while a round passes, then BISECT_STEPS bisections. */
const FIRST_RATE = env('BENCH_FIRST_RATE', 500);
const RATE_STEP = 1.5;
const BISECT_STEPS = 2;
const SEARCH_BUDGET_MS = env('BENCH_SEARCH_BUDGET_MS', 45_000);
/** Instead of the search: these paced rates, in order (comparing two builds at one rate). */
const FIXED_RATES = process.env.BENCH_RATES?.split(',').map(Number);
const CONNECT_BATCH = 200;
const SETTLE_MS = 300;
const target = { p99Ms: 100, deliveriesPerSec: 100_000, rssBytes: 300e6 };
const PROFILE_DIR = process.env.BENCH_PROFILE;
const execArgv = PROFILE_DIR ? { execArgv: ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] } : {};
/** Node flags of the server processes: --expose-gc (for the live RSS at the end) and BENCH_SERVER_NODE_ARGS (e.g. --trace-gc). */
// The heap cap is the one deploy/base/deployment.yaml sets (NODE_OPTIONS); BENCH_SERVER_NODE_ARGS replaces it.
const serverNodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '--max-old-space-size=256').split(' ').filter(Boolean);
const serverExecArgv = { execArgv: [...(execArgv.execArgv ?? []), '--expose-gc', ...serverNodeArgs] };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const startedAt = Date.now();

const watchdog = setTimeout(() => {
  console.error('bench/ws: time limit reached, giving up');
  process.exit(1);
}, 175_000);
watchdog.unref();

/** Removes what a run left in Redis (event claims), so runs leave no trace. */
async function dropKeys(prefix) {
  const redis = new Redis(process.env.BENCH_REDIS_ADDRESS ?? '127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** Changes per project in a round of `count` (the server goes round robin over the instances, project by project). */
function changesPerProject(info, count) {
  const perProject = new Array(info.projects).fill(0);
  const instances = info.projects * info.instancesPerProject;
  for (let c = 0; c < count; c++) perProject[Math.floor((c % instances) / info.instancesPerProject)]++;
  return perProject;
}

/** Connected servers and client processes, ready for rounds of changes. */
async function setUp(replicas) {
  const prefix = `portico-bench:${process.pid}:${randomUUID()}:`;
  const serverEnv = replicas > 1 ? { BENCH_KV: 'redis', BENCH_REDIS_PREFIX: prefix } : { BENCH_KV: 'memory' };
  const servers = Array.from({ length: replicas }, () => startChild(here('./server.mjs'), [], serverEnv, serverExecArgv));
  const clients = Array.from({ length: CLIENT_PROCS }, () => startChild(here('./clients.mjs'), [], {}, execArgv));
  const infos = await Promise.all(servers.map((s) => s.ready));
  await Promise.all(clients.map((c) => c.ready));
  const info = infos[0];

  // Socket i is user i (of project floor(i / usersPerProject)), on server i % replicas, in client process i % CLIENT_PROCS.
  const urls = clients.map(() => []);
  const projectsOf = clients.map(() => []);
  const t0 = performance.now();
  for (let from = 0; from < info.users.length; from += CONNECT_BATCH) {
    const ids = info.users.slice(from, from + CONNECT_BATCH).map((_, k) => from + k);
    const tickets = await Promise.all(servers.map((s, r) => s.request({ cmd: 'tickets', users: ids.filter((i) => i % replicas === r).map((i) => info.users[i]) })));
    const next = servers.map(() => 0);
    for (const i of ids) {
      const r = i % replicas;
      urls[i % CLIENT_PROCS].push(`ws://127.0.0.1:${infos[r].port}/ws?ticket=${tickets[r][next[r]++]}`);
      projectsOf[i % CLIENT_PROCS].push(Math.floor(i / info.usersPerProject));
    }
  }
  const opened = await Promise.all(clients.map((c, k) => c.request({ cmd: 'open', urls: urls[k] })));
  const failed = opened.find((o) => o.error);
  if (failed) throw new Error(failed.error);
  await Promise.all(clients.map((c) => c.request({ cmd: 'subscribe' })));
  const connectMs = performance.now() - t0;
  await sleep(SETTLE_MS);

  return {
    replicas,
    connectMs,
    /** One round of `count` changes at `perSecond` (0: burst). */
    async round(perSecond, count = CHANGES) {
      const perProject = changesPerProject(info, count);
      const expected = projectsOf.map((projects) => projects.reduce((n, p) => n + 2 * perProject[p], 0));
      const t0 = performance.now();
      const window = cpuWindow(replicas > 1 ? ['redis-server'] : []);
      const before = await Promise.all(servers.map((s) => s.request({ cmd: 'resetPeak' })));
      const armed = await Promise.all(clients.map((c, k) => c.request({ cmd: 'arm', expected: expected[k] })));
      const made = await servers[0].request({ cmd: 'changes', count, perSecond });
      const drainMs = perSecond ? 10_000 : 30_000;
      const stats = await Promise.all(clients.map((c) => c.request({ cmd: 'await', timeoutMs: drainMs })));
      const rss = await Promise.all(servers.map((s) => s.request({ cmd: 'rss' })));
      if (process.env.BENCH_VERBOSE) {
        const m = (b) => `${Math.round(b / 1e6)}`;
        for (const r of rss) console.log(`  ${perSecond || 'burst'}: server rss ${m(r.memory.rss)} MB, peak ${m(r.peakRss)}, heap ${m(r.memory.heapUsed)}/${m(r.memory.heapTotal)}, external ${m(r.memory.external)}, arrayBuffers ${m(r.memory.arrayBuffers)}`);
      }
      const wallMs = performance.now() - t0;
      const cpu = window();
      await sleep(SETTLE_MS);
      // CPU in cores (1 = one core busy for the whole round): ours, per side, and whatever else ran meanwhile.
      const serverMs = rss.reduce((n, r, i) => n + (r.cpuUs - before[i].cpuUs) / 1000, 0);
      const clientMs = stats.reduce((n, s, i) => n + (s.cpuUs - armed[i].cpuUs) / 1000, 0);
      const delivered = stats.reduce((n, s) => n + s.delivered, 0);
      const lastAt = Math.max(...stats.map((s) => s.lastAt));
      const latency = mergePairs(stats.map((s) => s.latency));
      // Arrival times since the first change was made (each client counted from when it was armed, shifted to the
      // producer's start): what a burst costs whatever the moment each event was published.
      const sinceStart = mergePairs(stats.map((s) => s.sinceArmed.map(([ms, n]) => [ms + s.armedAt - made.startedAt, n])));
      const result = {
        perSecond,
        madeRate: count / (made.ms / 1000),
        expected: expected.reduce((a, b) => a + b, 0),
        delivered,
        deliveriesPerSec: delivered / ((lastAt - made.startedAt) / 1000),
        p50: quantile(latency, 0.5),
        p99: quantile(latency, 0.99),
        max: quantile(latency, 1),
        withinP50: quantile(sinceStart, 0.5),
        withinP99: quantile(sinceStart, 0.99),
        peakRss: rss.map((r) => r.peakRss),
        serverMs,
        clientMs,
        madeMs: made.ms,
        spanMs: lastAt - made.startedAt,
        serverCores: serverMs / wallMs,
        clientCores: clientMs / wallMs,
        redisCores: cpu.namedMs / wallMs,
        softirqCores: cpu.softirqMs / wallMs,
        otherCores: cpu.other(serverMs + clientMs) / wallMs,
      };
      result.complete = result.delivered === result.expected;
      // A paced round counts only if the producer kept the pace and every event arrived in time.
      result.kept = !perSecond || result.madeRate >= 0.9 * perSecond;
      result.passed = result.complete && result.kept && result.p99 < target.p99Ms;
      return result;
    },
    /** JS memory (heap + external) each server holds after a full GC, as opposed to garbage not collected yet. */
    heldMemory: () => Promise.all(servers.map((s) => s.request({ cmd: 'gc' }))),
    async tearDown() {
      await Promise.all(clients.map((c) => c.stop()));
      await Promise.all(servers.map((s) => s.stop()));
      if (replicas > 1) await dropKeys(prefix);
    },
  };
}

/**
 * The highest paced rate whose round passes: up by RATE_STEP until one fails, then bisect; the best rate is then
 * run once more to confirm it (the machine is shared: one lucky round is not a result). If the confirmation
 * fails, the next lower passing rate is confirmed instead.
 */
async function searchRate(setup) {
  const rounds = [];
  const deadline = Date.now() + SEARCH_BUDGET_MS;
  const passed = [];
  let good;
  let bad;
  let rate = FIRST_RATE;
  for (let bisections = 0; bisections <= BISECT_STEPS && Date.now() < deadline; ) {
    const r = await setup.round(Math.round(rate));
    rounds.push(r);
    if (r.passed) passed.push(r);
    else if (!bad || r.perSecond < bad.perSecond) bad = r;
    // the highest passing rate below the lowest failing one
    good = passed.filter((p) => !bad || p.perSecond < bad.perSecond).reduce((a, b) => (a && a.perSecond >= b.perSecond ? a : b), undefined);
    if (good && !bad) rate *= RATE_STEP;
    else if (!good) rate /= RATE_STEP;
    else {
      bisections++;
      rate = Math.sqrt(good.perSecond * bad.perSecond);
      if (Math.abs(rate - good.perSecond) < 0.03 * good.perSecond) break;
    }
    if (rate < 20) break;
  }
  passed.sort((a, b) => b.perSecond - a.perSecond);
  for (const candidate of passed.slice(0, 2)) {
    const again = await setup.round(candidate.perSecond);
    again.confirmation = true;
    rounds.push(again);
    if (again.passed) return { best: again, rounds };
  }
  return { best: undefined, lowest: rounds.reduce((a, b) => (b.perSecond < a.perSecond ? b : a)), rounds };
}

async function fixedRates(setup) {
  const rounds = [];
  for (const rate of FIXED_RATES) rounds.push(await setup.round(rate));
  const best = rounds.filter((r) => r.passed).sort((a, b) => b.perSecond - a.perSecond)[0];
  return { best, lowest: rounds[0], rounds };
}

// --- run ---------------------------------------------------------------------------------------------------

/** bench/scale runs only the burst round, as a child: the result goes back over IPC. */
if (process.env.BENCH_BURST_ONLY) {
  let setup;
  try {
    setup = await setUp(REPLICAS[0]);
    // BENCH_BURST_WARMUP=n: n bursts first, not reported (a server's first burst also pays for compiling its code).
    for (let i = 0; i < Number(process.env.BENCH_BURST_WARMUP ?? 0); i++) await setup.round(0);
    const burst = await setup.round(0);
    process.send?.({ changes: CHANGES, deliveries: burst.delivered, p50: burst.p50, p99: burst.p99, withinP50: burst.withinP50, withinP99: burst.withinP99, complete: burst.complete, peakRss: burst.peakRss[0], serverMs: burst.serverMs, clientMs: burst.clientMs, madeMs: burst.madeMs, spanMs: burst.spanMs });
  } catch (error) {
    process.send?.({ error: error.message });
  } finally {
    await setup?.tearDown();
  }
  process.exit(0);
}

const mb = (b) => `${fmt(b / 1e6)} MB`;
const baseline = startChild(here('../lib/baseline.mjs'));
const { port: basePort } = await baseline.ready;
const hello = await load({ url: `http://127.0.0.1:${basePort}`, path: '/', durationMs: 3000, connections: 32 });
await baseline.stop();
const ceilingChild = startChild(here('../lib/tcp-ceiling.mjs'), ['2000', '2700', '2000']);
const ceiling = await ceilingChild.ready;
await ceilingChild.stop();

console.log(
  `bench/ws: 2,000 clients (in ${CLIENT_PROCS} client process${CLIENT_PROCS === 1 ? '' : 'es'}) across 50 projects, rounds of ${fmt(CHANGES)} instance status changes (burst, then paced at the highest rate keeping p99 < ${target.p99Ms} ms) …`,
);
const scenarios = [];
for (const replicas of REPLICAS) {
  let setup;
  try {
    setup = await setUp(replicas);
    const burst = await setup.round(0);
    // The same burst again: the first one also pays for compiling the code it runs, this one shows a server that
    // has been up for a while. Builds can differ in either, so both are reported.
    const warmBurst = await setup.round(0);
    const search = FIXED_RATES ? await fixedRates(setup) : await searchRate(setup);
    const held = await setup.heldMemory();
    if (process.env.BENCH_VERBOSE) for (const h of held) console.log(`  after a full GC: heap ${mb(h.heapUsed)}, external ${mb(h.external)}`);
    scenarios.push({ replicas, connectMs: setup.connectMs, burst, warmBurst, ...search });
    const allRounds = [burst, warmBurst, ...search.rounds];
    const peak = (i) => Math.max(...allRounds.map((r) => r.peakRss[i]));
    const trace = search.rounds.map(
      (r) =>
        `${r.confirmation ? 'confirm ' : ''}${fmt(r.perSecond)}/s ${r.passed ? 'ok' : 'no'} (p99 ${fmt(r.p99)} ms, server CPU ${fmt(r.serverCores, 2)}${r.complete ? '' : `, ${fmt(r.delivered)}/${fmt(r.expected)} delivered`}${r.kept ? '' : `, made only ${fmt(r.madeRate)}/s`}, other load ${fmt(r.otherCores, 1)})`,
    );
    console.log(`${replicas} server${replicas > 1 ? 's' : ''}: connected in ${fmt(setup.connectMs)} ms; paced rounds: ${trace.join(' · ')}`);
    console.log(
      `  server RSS peak over all ${allRounds.length} rounds: ${held.map((_, i) => mb(peak(i))).join(' + ')}; JS memory held after a full GC at the end: ${held.map((h) => (h.collected ? mb(h.held) : 'n/a')).join(' + ')}`,
    );
  } catch (error) {
    console.log(`${replicas}-server scenario skipped: ${error.message}${replicas > 1 ? ' (is Redis running at 127.0.0.1:6379?)' : ''}`);
  } finally {
    await setup?.tearDown();
  }
}

const yes = (ok) => (ok ? 'yes' : 'NO');
const row = (label, r) => [
  label,
  r.perSecond ? fmt(r.perSecond) : `burst ${fmt(r.madeRate)}`,
  fmt(r.deliveriesPerSec),
  `${fmt(r.p50)} ms`,
  `${fmt(r.p99)} ms`,
  `${fmt(r.max)} ms`,
  r.perSecond ? '' : `${fmt(r.withinP50)} / ${fmt(r.withinP99)} ms`,
  r.peakRss.map(mb).join(' + '),
  `${fmt(r.serverMs)} ms`,
  [r.serverCores, r.clientCores, r.redisCores, r.softirqCores, r.otherCores].map((c) => fmt(c, 2)).join(' / '),
  yes(r.complete && r.p99 < target.p99Ms),
  yes(r.complete && r.deliveriesPerSec >= target.deliveriesPerSec),
  yes(Math.max(...r.peakRss) < target.rssBytes),
  yes(r.complete && r.p99 < target.p99Ms && r.deliveriesPerSec >= target.deliveriesPerSec && Math.max(...r.peakRss) < target.rssBytes),
];
const blank = (n) => new Array(n).fill('');
const rows = [
  ['node:http hello-world (baseline)', '', `${fmt(hello.rps)} req/s`, `${fmt(hello.p50, 2)} ms`, `${fmt(hello.p99, 2)} ms`, ...blank(9)],
  [`raw TCP writes to ${fmt(ceiling.sockets)} sockets (ceiling)`, '', `${fmt(ceiling.writesPerSec)} writes/s, ${fmt(ceiling.cpuUsPerWrite, 1)} µs CPU each`, ...blank(11)],
];
for (const s of scenarios) {
  const name = s.replicas === 1 ? '1 server (in-memory bus)' : `${s.replicas} servers (Redis pub/sub)`;
  rows.push(row(`${name}, first burst`, s.burst));
  rows.push(row(`${name}, second burst`, s.warmBurst));
  if (s.best) rows.push(row(`${name}, paced max`, s.best));
  else rows.push(row(`${name}, paced (none passed)`, s.lowest));
}
printTable(
  `bench/ws — ${fmt(CHANGES)} changes a round = ${fmt(CHANGES * 80)} deliveries; targets: p99 < ${target.p99Ms} ms and ≥ ${fmt(target.deliveriesPerSec)} deliveries/s in the same round, server RSS < ${mb(target.rssBytes)}; ${Math.round((Date.now() - startedAt) / 1000)} s`,
  ['scenario', 'changes/s', 'deliveries/s', 'p50', 'p99', 'max', 'burst: 50% / 99% in', 'server RSS peak', 'server CPU', 'CPU srv/cli/redis/net/other', 'p99 ok', '≥100k/s', 'RSS ok', 'all targets'],
  rows,
);
console.log(
  'latency = client receive time − the event timestamp set where the event was published (same host clock); a burst\n' +
    'writes the changes as fast as the embedded cluster takes them, so its latency is the time to drain the backlog;\n' +
    'the first burst of a server also pays for compiling the code it runs (JIT), the second one does not.\n' +
    '"burst: 50% / 99% in" = time from the first change made to the moment half / 99% of the burst\'s events had arrived:\n' +
    'unlike latency, it does not grow when the producer publishes its changes sooner (a faster cluster write path).\n' +
    '"paced max" is the highest rate at which p99 stayed under target with every event delivered.\n' +
    'deliveries/s = events received by all clients / time from the first change to the last event received.\n' +
    'raw TCP writes: one process writing 2.7 KB to 40 sockets at a time, round robin over 2,000, drained by another\n' +
    'process; a delivery costs at most one such write per socket and change, fewer when changes arrive together.\n' +
    'server CPU = CPU time the server process(es) used in the round (all their threads: JIT and GC included).\n' +
    `CPU = cores busy during the round (of ${cores}): server process(es) / client processes / Redis / kernel packet processing\n` +
    '(softirq: on loopback the receiving half of every TCP write) / everything else on the machine. A round with a high\n' +
    '"other" ran on a machine busy with other work.',
);
if (scenarios.some((s) => !s.burst.complete || !s.warmBurst.complete || s.rounds.some((r) => !r.complete))) console.log('note: some rounds did not deliver every expected event in time (see the trace above)');
process.exit(0);
