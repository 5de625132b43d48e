// Benchmark child: a Portico server over an embedded cluster seeded with 1,000 projects × 3 roles (10 user and
// 2 group bindings each) and 20,000 instances; answers in-process measurements over IPC.
import { performance } from 'node:perf_hooks';
import { createEmbeddedCluster, createLogger, createMemoryKeyValue, createPortico, loadConfig, resources } from '../../packages/core/dist/index.js';
import { createServer } from '../../packages/server/dist/index.js';

const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 1000);
const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 20000);
const ROLES = {
  'platform-admin': ['instances/*, *, allow', 'secrets/*, *, allow', 'rgds/*, *, allow', 'members/*, *, allow'],
  developer: ['instances/*, *, allow', 'rgds/*, get, allow'],
  viewer: ['instances/*, get, allow', 'rgds/*, get, allow'],
};
const MEMBER_OF = ['proj-0001', 'proj-0002', 'proj-0003'];
const pname = (i) => `proj-${String(i).padStart(4, '0')}`;
const NS = 'portico';
const KRO_FINALIZER = 'kro.run/finalizer';

const cluster = await createEmbeddedCluster({ kroStepMs: 1000 });
const t0 = performance.now();
for (let r = 0; r < 20; r++) {
  await cluster.create(resources.rgd, {
    apiVersion: 'kro.run/v1alpha1',
    kind: 'ResourceGraphDefinition',
    metadata: { name: `bench-app-${r}`, annotations: { 'portico.dev/catalog': 'true', 'portico.dev/category': r % 2 ? 'web' : 'databases', 'portico.dev/title': `Bench app ${r}` } },
    spec: { schema: { apiVersion: 'v1alpha1', kind: `BenchApp${r}`, spec: { replicas: 'integer | default=1' } }, resources: [{ id: 'deployment', template: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: '${schema.metadata.name}' } } }] },
  });
}
for (let p = 0; p < PROJECTS; p++) {
  const name = pname(p);
  const roles = Object.entries(ROLES).map(([role, policies]) => ({
    name: role,
    policies,
    users: [...Array.from({ length: 10 }, (_, i) => `u-${name}-${role}-${i}`), ...(role === 'developer' && MEMBER_OF.includes(name) ? ['bench-user'] : [])],
    groups: Array.from({ length: 2 }, (_, i) => `g-${name}-${role}-${i}`),
  }));
  await cluster.create(resources.project, {
    apiVersion: 'portico.dev/v1alpha1',
    kind: 'Project',
    metadata: { name, namespace: NS, annotations: { 'portico.dev/created-by': 'bench' } },
    spec: { description: `bench project ${p}`, destinations: [{ namespace: `ns-${name}` }], roles },
  });
}
const activeStatus = { state: 'ACTIVE', conditions: [{ type: 'Ready', status: 'True', reason: 'AllResourcesReady', message: '', observedGeneration: 1, lastTransitionTime: new Date().toISOString() }] };
const seededAt = new Date().toISOString();
for (let i = 0; i < INSTANCES; i++) {
  const r = i % 20;
  const project = pname(i % PROJECTS);
  const ref = await cluster.discover('kro.run', 'v1alpha1', `BenchApp${r}`);
  await cluster.create(ref, {
    apiVersion: 'kro.run/v1alpha1',
    kind: `BenchApp${r}`,
    metadata: {
      name: `app-${i}`,
      namespace: `ns-${project}`,
      finalizers: [KRO_FINALIZER],
      labels: { 'portico.dev/project': project, 'portico.dev/deployment-mode': 'direct', 'portico.dev/rgd': `bench-app-${r}` },
      annotations: { 'portico.dev/created-by': 'bench', 'portico.dev/created-at': seededAt },
    },
    spec: { replicas: 1 },
    status: activeStatus,
  });
}
const seedMs = performance.now() - t0;
// The embedded cluster unrefs its timers; hold the loop open while the controller settles.
const keepAlive = setInterval(() => {}, 1000);
await cluster.controller.settle();
clearInterval(keepAlive);

const config = loadConfig({
  PORTICO_PROFILE: 'development',
  PORTICO_CLUSTER: 'embedded',
  PORTICO_KV: 'memory',
  ADMIN_PASSWORD: 'bench-admin-password',
  LOG_LEVEL: 'warn',
  PORTICO_RATE_LIMITS: '0', // the benchmark measures throughput, not the limiter
});
const t1 = performance.now();
const portico = await createPortico({ config, cluster, kv: createMemoryKeyValue(), logger: createLogger('warn') });
const startMs = performance.now() - t1;
const { listen } = createServer(portico);
const addr = await listen('127.0.0.1', 0);

const ctx = { ip: '127.0.0.1' };
const admin = await portico.auth.verifyToken((await portico.auth.localLogin({ username: 'admin', password: 'bench-admin-password' }, ctx)).token);
await portico.accounts.create(admin, { username: 'bench-user', password: 'bench-user-password', groups: [] });
const { token } = await portico.auth.localLogin({ username: 'bench-user', password: 'bench-user-password' }, ctx);
const member = await portico.auth.verifyToken(token);

function decisions() {
  const objects = [];
  for (let i = 0; i < 1000; i++) {
    const p = i % 2 ? MEMBER_OF[i % 3] : pname(Math.floor(PROJECTS / 2) + (i % Math.floor(PROJECTS / 2.5)));
    objects.push(`instances/${p}/ns-${p}/BenchApp${i % 20}/app-${i}`);
  }
  for (let i = 0; i < 5000; i++) portico.authz.can(member, 'create', objects[i % objects.length]); // warm up
  const samples = [];
  for (let i = 0; i < 20000; i++) {
    const s = process.hrtime.bigint();
    portico.authz.can(member, i % 3 ? 'create' : 'get', objects[i % objects.length]);
    samples.push(Number(process.hrtime.bigint() - s) / 1000);
  }
  samples.sort((a, b) => a - b);
  const n = 200000;
  const s = performance.now();
  for (let i = 0; i < n; i++) portico.authz.can(member, 'create', objects[i % objects.length]);
  const perSec = n / ((performance.now() - s) / 1000);
  return { p50us: samples[samples.length >> 1], p99us: samples[Math.floor(samples.length * 0.99)], perSec };
}

async function rebuild() {
  const results = [];
  for (let k = 0; k < 5; k++) {
    const project = pname(Math.floor(PROJECTS * 0.6) + k);
    const user = `late-user-${k}`;
    const actor = { ...member, id: user, subject: `user:${user}`, groups: [] };
    const s = performance.now();
    await portico.projects.bind(admin, project, 'viewer', 'user', user);
    while (!portico.authz.can(actor, 'get', `projects/${project}`)) await new Promise((r) => setImmediate(r));
    results.push(performance.now() - s);
  }
  results.sort((a, b) => a - b);
  return { medianMs: results[2], maxMs: results[4] };
}

process.on('message', async (m) => {
  if (m === 'stop') {
    await portico.stop();
    process.exit(0);
  }
  if (m.cmd === 'decisions') process.send({ id: m.id, result: decisions() });
  if (m.cmd === 'rebuild') process.send({ id: m.id, result: await rebuild() });
});
process.send({ port: addr.port, token, seedMs, startMs, projects: PROJECTS, instances: INSTANCES, rss: process.memoryUsage().rss });
