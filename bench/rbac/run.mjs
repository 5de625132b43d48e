// bench/rbac: authorization at scale. Prints a table; targets are from the issue (decision p50 < 20 µs,
// rebuild < 200 ms, list endpoints ≥ 25% of the plain node:http hello-world measured in the same run).
import { fileURLToPath } from 'node:url';
import { startChild } from '../lib/child.mjs';
import { load } from '../lib/load.mjs';
import { fmt, printTable } from '../lib/table.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const durationMs = Number(process.env.BENCH_DURATION_MS ?? 5000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);

const baseline = startChild(here('../lib/baseline.mjs'));
const { port: basePort } = await baseline.ready;
const hello = await load({ url: `http://127.0.0.1:${basePort}`, path: '/', durationMs, connections });
await baseline.stop();

console.log(`seeding ${process.env.BENCH_PROJECTS ?? 1000} projects × 3 roles (10 users + 2 groups each) and ${process.env.BENCH_INSTANCES ?? 20000} instances …`);
const server = startChild(here('./server.mjs'));
const info = await server.ready;
const url = `http://127.0.0.1:${info.port}`;
const headers = { authorization: `Bearer ${info.token}` };

const decisions = await server.request({ cmd: 'decisions' });
// A yes and a no, both about projects the member is in: a project it cannot see answers 404 (never a "no"
// that would confirm it exists), which is not the question this row measures.
const canI = await load({ url, path: ['/api/v1/account/can-i/instances/create/proj-0002', '/api/v1/account/can-i/projects/delete/proj-0003'], headers, durationMs, connections });
const projects = await load({ url, path: '/api/v1/projects', headers, durationMs, connections });
const rgds = await load({ url, path: '/api/v1/rgds', headers, durationMs, connections });
const instances = await load({ url, path: '/api/v1/instances?pageSize=20', headers, durationMs, connections });
const rebuild = await server.request({ cmd: 'rebuild' });
await server.stop();

const share = (r) => `${fmt((100 * r.rps) / hello.rps, 1)}%`;
const verdict = (ok) => (ok ? 'ok' : 'MISSED');
printTable(
  `bench/rbac — ${fmt(info.projects)} projects, ${fmt(info.instances)} instances seeded in ${fmt(info.seedMs)} ms; Portico started (all policies built) in ${fmt(info.startMs)} ms; server RSS ${fmt(info.rss / 2 ** 20)} MiB`,
  ['measurement', 'result', 'p50', 'p99', 'vs hello-world', 'target', ''],
  [
    ['node:http hello-world (baseline)', `${fmt(hello.rps)} req/s`, `${fmt(hello.p50, 2)} ms`, `${fmt(hello.p99, 2)} ms`, '100%', '', ''],
    ['can-i decision, in process', `${fmt(decisions.perSec)} /s`, `${fmt(decisions.p50us, 2)} µs`, `${fmt(decisions.p99us, 2)} µs`, '', 'p50 < 20 µs', verdict(decisions.p50us < 20)],
    ['GET /account/can-i/instances/create/{p}', `${fmt(canI.rps)} req/s`, `${fmt(canI.p50, 2)} ms`, `${fmt(canI.p99, 2)} ms`, share(canI), '', ''],
    ['GET /projects (member of 3)', `${fmt(projects.rps)} req/s`, `${fmt(projects.p50, 2)} ms`, `${fmt(projects.p99, 2)} ms`, share(projects), '≥ 25%', verdict(projects.rps >= 0.25 * hello.rps)],
    ['GET /rgds (member of 3)', `${fmt(rgds.rps)} req/s`, `${fmt(rgds.p50, 2)} ms`, `${fmt(rgds.p99, 2)} ms`, share(rgds), '≥ 25%', verdict(rgds.rps >= 0.25 * hello.rps)],
    ['GET /instances?pageSize=20 (member of 3)', `${fmt(instances.rps)} req/s`, `${fmt(instances.p50, 2)} ms`, `${fmt(instances.p99, 2)} ms`, share(instances), '', ''],
    ['policy rebuild after one binding change', `${fmt(rebuild.medianMs, 1)} ms median`, '', `${fmt(rebuild.maxMs, 1)} ms max`, '', '< 200 ms', verdict(rebuild.maxMs < 200)],
  ],
);
const failures = [canI, projects, rgds, instances].reduce((n, r) => n + r.errors + r.unexpected, 0);
if (failures) console.log(`warning: ${failures} requests failed or answered an unexpected status`);
