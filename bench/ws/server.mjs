// Benchmark child: one Portico server with the WebSocket endpoint, over its own embedded cluster seeded with
// 50 projects (40 developers each) and 4 instances per project. Answers over IPC: tickets for users, a run of
// instance status changes (made in this replica's cluster), its RSS. Several children can share one Redis
// (BENCH_KV=redis, same BENCH_REDIS_PREFIX): events produced by one reach the sockets of all.
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';

const coreModule = process.env.BENCH_CORE_MODULE ?? new URL('../../packages/core/dist/index.js', import.meta.url).href;
const serverModule = process.env.BENCH_SERVER_MODULE ?? new URL('../../packages/server/dist/index.js', import.meta.url).href;
const { createEmbeddedCluster, createLogger, createMemoryKeyValue, createRedisKeyValue, createPortico, loadConfig, resources } = await import(coreModule);
const { createServer, attachWebSocket } = await import(serverModule);
if (typeof attachWebSocket !== 'function') {
  throw new Error('the built @portico/server does not export attachWebSocket (packages/server/src/index.ts), rebuild with `npm run build`');
}

export const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 50);
export const USERS_PER_PROJECT = Number(process.env.BENCH_USERS_PER_PROJECT ?? 40);
const INSTANCES_PER_PROJECT = 4;
const RESOURCES = 3;
const NS = 'portico';
const pname = (i) => `proj-${String(i).padStart(2, '0')}`;
const user = (p, k) => `u-${pname(p)}-${k}`;

// A slow simulated kro (one step per 10 min): this benchmark writes the instance statuses itself.
const cluster = await createEmbeddedCluster({ kroStepMs: 600_000 });
const kindRef = { group: 'kro.run', version: 'v1alpha1', kind: 'BenchApp', plural: 'benchapps', namespaced: true };
await cluster.create(resources.rgd, {
  apiVersion: 'kro.run/v1alpha1',
  kind: 'ResourceGraphDefinition',
  metadata: { name: 'bench-app', annotations: { 'portico.dev/catalog': 'true', 'portico.dev/category': 'web' } },
  spec: {
    schema: { apiVersion: 'v1alpha1', kind: 'BenchApp', spec: { replicas: 'integer | default=1' } },
    resources: Array.from({ length: RESOURCES }, (_, i) => ({ id: `r${i}`, template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `\${schema.metadata.name}-${i}` } } })),
  },
  // Active from the start, as kro would leave it.
  status: { state: 'Active', conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', observedGeneration: 1, lastTransitionTime: new Date().toISOString() }] },
});
for (let p = 0; p < PROJECTS; p++) {
  await cluster.create(resources.project, {
    apiVersion: 'portico.dev/v1alpha1',
    kind: 'Project',
    metadata: { name: pname(p), namespace: NS },
    spec: {
      description: `bench project ${p}`,
      destinations: [{ namespace: `ns-${pname(p)}` }],
      roles: [{ name: 'developer', policies: ['instances/*, *, allow', 'rgds/*, get, allow'], users: Array.from({ length: USERS_PER_PROJECT }, (_, k) => user(p, k)), groups: [] }],
    },
  });
}

const condition = (type, status, reason, message) => ({ type, status, reason, message, observedGeneration: 1, lastTransitionTime: new Date().toISOString() });
/** kro's status at step `ready` of `RESOURCES` (ACTIVE when all are ready). */
const statusAt = (ready) =>
  ready >= RESOURCES
    ? { state: 'ACTIVE', conditions: [condition('ResourcesReady', 'True', 'AllResourcesReady', `${RESOURCES}/${RESOURCES} resources ready`), condition('Ready', 'True', 'AllResourcesReady', 'all resources are ready')] }
    : { state: 'IN_PROGRESS', conditions: [condition('ResourcesReady', 'False', 'Progressing', `${ready}/${RESOURCES} resources ready`), condition('Ready', 'False', 'Progressing', `waiting for resource "r${ready}"`)] };

const instances = [];
for (let p = 0; p < PROJECTS; p++) {
  for (let i = 0; i < INSTANCES_PER_PROJECT; i++) {
    const obj = {
      apiVersion: 'kro.run/v1alpha1',
      kind: 'BenchApp',
      metadata: {
        name: `app-${i}`,
        namespace: `ns-${pname(p)}`,
        finalizers: ['kro.run/finalizer'],
        labels: { 'portico.dev/project': pname(p), 'portico.dev/deployment-mode': 'direct', 'portico.dev/rgd': 'bench-app' },
        annotations: { 'portico.dev/created-by': 'bench' },
      },
      spec: { replicas: 1 },
      status: statusAt(RESOURCES),
    };
    await cluster.create(kindRef, obj);
    instances.push({ name: obj.metadata.name, namespace: obj.metadata.namespace, ready: RESOURCES });
  }
}

const env = {
  PORTICO_PROFILE: 'development',
  PORTICO_CLUSTER: 'embedded',
  PORTICO_KV: process.env.BENCH_KV ?? 'memory',
  ADMIN_PASSWORD: 'bench-admin-password',
  LOG_LEVEL: 'warn',
  PORTICO_WS_MAX_BUFFER_BYTES: String(8 * 1024 * 1024),
  PORTICO_WS_HEARTBEAT_MS: '30000',
  // Every simulated user connects from the one loopback address; the per-address cap (256 by default) is for
  // real clients and would refuse the 2,000 benchmark sockets.
  PORTICO_MAX_CONNECTIONS_PER_IP: '100000',
};
const config = loadConfig(env);
const logger = createLogger('warn');
const kv =
  config.kv === 'redis'
    ? createRedisKeyValue({ address: process.env.BENCH_REDIS_ADDRESS ?? '127.0.0.1:6379', prefix: process.env.BENCH_REDIS_PREFIX ?? `portico-bench:${randomUUID()}:`, logger })
    : createMemoryKeyValue();
const portico = await createPortico({ config, cluster, kv, logger });
const app = createServer(portico, { upgrade: (server) => attachWebSocket(server, portico) });
const address = await app.listen('127.0.0.1', 0);

let peakRss = process.memoryUsage.rss();
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 50);
sampler.unref();

const actor = (id) => ({
  id,
  subject: `user:${id}`,
  email: `${id}@bench.example`,
  displayName: id,
  groups: [],
  tokenId: randomUUID(),
  issuer: 'bench',
  issuedAt: new Date(),
  expiresAt: new Date(Date.now() + 3_600_000),
  local: false,
});

/** Change `c` of a round, round robin over the instances from the first: each moves one step (0/3 → … → ACTIVE → 0/3). */
function patchInstance(c) {
  const inst = instances[c % instances.length];
  inst.ready = (inst.ready + 1) % (RESOURCES + 1);
  return cluster.patch(kindRef, inst.name, { status: statusAt(inst.ready) }, { namespace: inst.namespace });
}

/**
 * `count` status changes. Without `perSecond` they are written as fast as the cluster takes them (a burst). With
 * it, each timer tick writes the changes that are due by then and gives the event loop back, so delivery runs
 * between ticks as it would between a real cluster's watch events (a loop that only awaited each patch would
 * never yield to I/O when the rate is above 1,000/s, and the "paced" run would be a burst in disguise).
 */
async function changes(count, perSecond) {
  const startedAt = Date.now();
  const t0 = performance.now();
  let made = 0;
  if (!perSecond) {
    while (made < count) {
      await patchInstance(made);
      made++;
    }
  } else {
    while (made < count) {
      const due = Math.min(count, Math.floor(((performance.now() - t0) * perSecond) / 1000) + 1);
      while (made < due) {
        await patchInstance(made);
        made++;
      }
      if (made < count) await new Promise((r) => setTimeout(r, Math.max(0, t0 + (made * 1000) / perSecond - performance.now())));
    }
  }
  return { startedAt, ms: performance.now() - t0 };
}

/** CPU time this process used so far (user + system), µs. */
const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

// The runner went away (finished, crashed or timed out): so does this server.
process.on('disconnect', () => process.exit(0));

process.on('message', async (m) => {
  if (m === 'stop') {
    await app.close();
    await portico.stop();
    await kv.close();
    await cluster.close();
    process.exit(0);
  }
  let result;
  if (m.cmd === 'tickets') result = await Promise.all(m.users.map(async (id) => (await portico.auth.issueTicket(actor(id))).ticket));
  else if (m.cmd === 'changes') result = await changes(m.count, m.perSecond);
  else if (m.cmd === 'rss') result = { rss: process.memoryUsage.rss(), peakRss, cpuUs: cpuUs(), memory: process.memoryUsage() };
  else if (m.cmd === 'gc') {
    // Started with --expose-gc by the runner: the JS memory the server really holds once garbage is gone (RSS
    // itself does not shrink right away after a GC, V8 keeps the pages it grew into).
    globalThis.gc?.();
    const { heapUsed, external } = process.memoryUsage();
    result = { held: heapUsed + external, heapUsed, external, collected: typeof globalThis.gc === 'function' };
  } else if (m.cmd === 'resetPeak') result = { rss: (peakRss = process.memoryUsage.rss()), cpuUs: cpuUs() };
  process.send({ id: m.id, result });
});

// users[i] is a member of project floor(i / usersPerProject); change c touches instance c % (projects × instancesPerProject).
process.send({
  port: address.port,
  projects: PROJECTS,
  usersPerProject: USERS_PER_PROJECT,
  instancesPerProject: INSTANCES_PER_PROJECT,
  users: Array.from({ length: PROJECTS }, (_, p) => Array.from({ length: USERS_PER_PROJECT }, (_, k) => user(p, k))).flat(),
});
