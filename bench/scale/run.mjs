// bench/scale: Portico at platform size. Generates the manifests (1,000 RGDs, 200 projects, 20,000 instances),
// starts the real server bin on them (first start), stops and starts it again on the data dir it wrote (restart),
// reads its RSS, then measures every list endpoint and can-i for a Server Admin and for a member of 4 projects,
// each beside a plain node:http server answering the very same bytes in the same run, and finally runs the
// WebSocket burst of bench/ws (1,000 status changes to 2,000 clients), and a first start on the Kubernetes adapter
// over 20,000 instances (kube-start.mjs). Prints a table with targets and ✔/✘.
// `--smoke`: a small platform and short rounds (CI runs it: it checks the benchmark works, not the targets),
// failing only when something does not work. Needs `npm run build`. Knobs: BENCH_DURATION_MS, BENCH_CONNECTIONS.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ok as api } from '../lib/api.mjs';
import { startChild } from '../lib/child.mjs';
import { load, summarize } from '../lib/load.mjs';
import { fmt, printTable } from '../lib/table.mjs';
import { MEMBER, memberProjects, writeManifests } from './manifests.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const smoke = process.argv.includes('--smoke');
const size = smoke ? { rgds: 50, projects: 20, instances: 1000 } : { rgds: 1000, projects: 200, instances: 20_000 };
const durationMs = Number(process.env.BENCH_DURATION_MS ?? (smoke ? 250 : 5000));
const warmupMs = smoke ? 100 : 500;
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const TURNS = 3;
const target = { share: 0.5, p99Ms: 25, restartMs: 3000, firstStartMs: 30_000, rssMiB: 300, wsP99Ms: 100, eventLoopBlockMs: 50 };
const adminPassword = 'bench-admin-password';
const memberPassword = 'bench-member-password';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const watchdog = setTimeout(() => {
  console.error(`bench/scale: time limit reached, giving up`);
  process.exit(1);
}, smoke ? 180_000 : 900_000);
watchdog.unref();

const work = await mkdtemp(path.join(tmpdir(), 'portico-scale-'));
const manifestsDir = path.join(work, 'manifests');
const dataDir = path.join(work, 'data');
let server;
process.on('exit', () => server?.kill('SIGKILL'));

/**
 * Starts the server bin; resolves with the process and how long it took to answer /readyz 200. The port is drawn
 * at random, so one taken meanwhile (an ephemeral port of some connection) is drawn again, up to three times.
 */
async function startServer(attempt = 1) {
  try {
    return await startServerOnce();
  } catch (error) {
    if (attempt >= 3 || !/EADDRINUSE/.test(error.stderr ?? '')) throw error;
    return startServer(attempt + 1);
  }
}

async function startServerOnce() {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--max-old-space-size=512', here('../../packages/server/dist/bin.js')], {
    env: {
      ...process.env,
      PORTICO_PROFILE: 'development',
      PORTICO_CLUSTER: 'embedded',
      PORTICO_KV: 'memory',
      PORTICO_DATA_DIR: dataDir,
      PORTICO_MANIFESTS: manifestsDir,
      ADMIN_PASSWORD: adminPassword,
      PORTICO_RATE_LIMITS: '0',
      SERVER_ADDRESS: `127.0.0.1:${port}`,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4096);
    process.stderr.write(chunk);
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw Object.assign(new Error(`server exited with ${child.exitCode} before it was ready`), { stderr });
    const ok = await fetch(`${url}/readyz`).then((r) => r.status === 200, () => false);
    if (ok) return { child, url, readyMs: performance.now() - t0 };
    await sleep(25);
  }
}

const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

async function stopServer(child) {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

const login = async (url, username, password) => (await api(url, 'POST', '/api/v1/auth/local/login', undefined, { username, password })).token;

/**
 * Portico and node:http serving the same bytes with the same load, taken in turns (node:http, Portico, three times,
 * each a third of the duration) so that a moment when the machine is busy weighs on both alike; each side's
 * result is its three turns together.
 */
async function measure(url, route, token, sameBytes) {
  const headers = { authorization: `Bearer ${token}` };
  const res = await fetch(`${url}${route}`, { headers });
  if (res.status !== 200) throw new Error(`GET ${route}: ${res.status} ${await res.text()}`);
  const body = Buffer.from(await res.arrayBuffer());
  await sameBytes.request({ body: body.toString('base64') });
  const turn = { durationMs: durationMs / TURNS, warmupMs: warmupMs / 2, connections };
  const plain = [];
  const portico = [];
  for (let k = 0; k < TURNS; k++) {
    plain.push(await load({ url: sameBytes.url, path: route, ...turn }));
    portico.push(await load({ url, path: route, headers, ...turn }));
  }
  return { route, bytes: body.length, plain: summarize(plain), portico: summarize(portico) };
}

// --- run ---------------------------------------------------------------------------------------------------
console.log(`bench/scale${smoke ? ' --smoke' : ''}: ${fmt(size.rgds)} RGDs, ${fmt(size.projects)} projects, ${fmt(size.instances)} instances; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
const t0 = performance.now();
await writeManifests(manifestsDir, size);
const generateMs = performance.now() - t0;

const step = (what) => console.log(`  … ${what} (${fmt((performance.now() - t0) / 1000, 1)} s)`);
step('manifests written; first start');
const first = await startServer();
server = first.child;
const firstRss = rssMiB(first.child.pid);
step(`ready in ${fmt(first.readyMs)} ms; stopping`);
await stopServer(first.child);
step('restart');
const again = await startServer();
server = again.child;
const restartRss = rssMiB(again.child.pid);
const { url } = again;

const adminToken = await login(url, 'admin', adminPassword);
await api(url, 'POST', '/api/v1/accounts', adminToken, { username: MEMBER, password: memberPassword, groups: [] });
const memberToken = await login(url, MEMBER, memberPassword);
// Lists are measured at steady state: once the simulated kro has walked every instance to its final state (it
// keeps writing statuses in the background after readiness, which is what readiness no longer waits for).
const settleStart = performance.now();
const walking = async () => {
  let n = 0;
  for (const health of ['Progressing', 'Unknown']) n += (await api(url, 'GET', `/api/v1/instances?pageSize=1&health=${health}`, adminToken)).totalCount;
  return n;
};
while ((await walking()) > 0 && performance.now() - settleStart < (smoke ? 60_000 : 600_000)) await sleep(500);
const kroSettledMs = performance.now() - settleStart;
const someProject = memberProjects(size.projects)[1];

const sameBytesChild = startChild(here('./same-bytes.mjs'));
const sameBytes = { ...sameBytesChild, url: `http://127.0.0.1:${(await sameBytesChild.ready).port}` };
const callers = [
  ['Server Admin', adminToken],
  ['member of 4 projects', memberToken],
];
const routes = [
  '/api/v1/instances?pageSize=20',
  '/api/v1/instances?pageSize=20&sortBy=updatedAt&sortOrder=desc',
  `/api/v1/instances?pageSize=20&project=${someProject}&health=Healthy`,
  '/api/v1/instances?pageSize=20&page=50',
  '/api/v1/instances/count',
  '/api/v1/rgds',
  '/api/v1/rgds?category=databases&sortBy=updatedAt',
  '/api/v1/rgds/count',
  '/api/v1/rgds/filters',
  '/api/v1/projects',
  `/api/v1/account/can-i/instances/create/${someProject}`,
];
const results = [];
step(`ready in ${fmt(again.readyMs)} ms; measuring ${callers.length * routes.length} endpoints`);
for (const [who, token] of callers) for (const route of routes) results.push({ who, ...(await measure(url, route, token, sameBytes)) });
await sameBytes.stop();
const afterRss = rssMiB(again.child.pid);
await stopServer(again.child);
server = undefined;

step('WebSocket burst');
// The WebSocket burst: bench/ws's setting (2,000 clients over 50 projects), burst round only.
const ws = startChild(here('../ws/run.mjs'), [], { BENCH_REPLICAS: '1', BENCH_BURST_ONLY: '1', ...(smoke ? { BENCH_CHANGES: '100' } : {}) });
const burst = await ws.ready.catch((err) => ({ error: err.message }));
await ws.stop();
await rm(work, { recursive: true, force: true });

step('Kubernetes adapter: first start');
const kube = startChild(here('./kube-start.mjs'), [], { BENCH_KUBE_INSTANCES: String(size.instances) });
const kubeStart = await kube.ready.catch((err) => ({ error: err.message }));
await kube.stop();

const mark = (ok) => (ok ? '✔' : '✘');
const rows = [];
for (const r of results) {
  const share = r.portico.rps / r.plain.rps;
  const ok = share >= target.share && r.portico.p99 < target.p99Ms && r.portico.errors + r.portico.unexpected === 0;
  rows.push([
    `GET ${r.route.replace('/api/v1', '')} (${r.who})`,
    fmt(r.bytes),
    `${fmt(r.portico.rps)} req/s`,
    `${fmt(r.portico.p99, 1)} ms`,
    `${fmt(r.plain.rps)} req/s, p99 ${fmt(r.plain.p99, 1)} ms`,
    `${fmt(100 * share)}%`,
    '≥ 50%, p99 < 25 ms',
    mark(ok),
  ]);
}
rows.push(['first start to /readyz (manifests applied)', '', `${fmt(first.readyMs / 1000, 1)} s`, '', '', '', '< 30 s', mark(first.readyMs < target.firstStartMs)]);
rows.push(['restart to /readyz (data dir)', '', `${fmt(again.readyMs / 1000, 2)} s`, '', '', '', '< 3 s', mark(again.readyMs < target.restartMs)]);
rows.push(['simulated kro: every instance walked, after the restart', '', `${fmt(kroSettledMs / 1000, 1)} s`, '', '', '', '(background)', '']);
rows.push(['RSS after first start / restart / lists', '', `${fmt(firstRss)} / ${fmt(restartRss)} / ${fmt(afterRss)} MiB`, '', '', '', '< 300 MiB', mark(Math.max(firstRss, restartRss) < target.rssMiB)]);
if (burst.error) rows.push(['WebSocket burst', '', `failed: ${burst.error}`, '', '', '', 'p99 < 100 ms', mark(false)]);
else rows.push([`WebSocket burst: ${fmt(burst.changes)} changes to 2,000 clients`, '', `${fmt(burst.deliveries)} deliveries`, `${fmt(burst.p99)} ms`, '', '', 'p99 < 100 ms', mark(burst.complete && burst.p99 < target.wsP99Ms)]);
if (kubeStart.error) rows.push(['Kubernetes adapter: first start', '', `failed: ${kubeStart.error}`, '', '', '', '≤ 50 ms blocked', mark(false)]);
else {
  rows.push([
    `Kubernetes adapter: first start over ${fmt(kubeStart.instances)} instances (${fmt(kubeStart.pages)} list pages), longest event-loop block`,
    '',
    `${fmt(kubeStart.startMs / 1000, 1)} s, ${fmt(kubeStart.maxBlockMs, 1)} ms`,
    `${fmt(kubeStart.p99BlockMs, 1)} ms`,
    '',
    '',
    '≤ 50 ms blocked',
    mark(kubeStart.maxBlockMs <= target.eventLoopBlockMs),
  ]);
}

printTable(
  `bench/scale${smoke ? ' --smoke (small platform, short rounds: targets not meaningful)' : ''} — ${fmt(size.rgds)} RGDs, ${fmt(size.projects)} projects, ${fmt(size.instances)} instances (manifests generated in ${fmt(generateMs)} ms); ${connections} connections, ${fmt(durationMs)} ms per measurement; load average now ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
  ['measurement', 'bytes', 'Portico', 'p99', 'same bytes, node:http', 'share', 'target', ''],
  rows,
);
console.log('share = Portico req/s ÷ req/s of a plain node:http server answering the very same bytes, same load, same run.');
const broken = results.filter((r) => r.portico.errors + r.portico.unexpected > 0 || r.portico.requests === 0);
if (broken.length || burst.error || !burst.complete || kubeStart.error) {
  console.log(`bench/scale: ${broken.length} endpoint(s) failed requests${burst.error || !burst.complete ? '; the WebSocket burst did not deliver every event' : ''}${kubeStart.error ? '; the Kubernetes start failed' : ''}`);
  process.exit(1);
}
process.exit(0);
