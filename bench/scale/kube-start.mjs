// Benchmark child for bench/scale: Portico's first start on the Kubernetes adapter, against the loopback
// Kubernetes API server the tests use (packages/core/test/support/fake-kube-api.ts, compiled here with
// esbuild) running in a process of its own, holding `BENCH_KUBE_INSTANCES` instances. Measures how long the
// first list and the index take and the longest time Portico's event loop was blocked meanwhile (target:
// ≤ 50 ms at a time). Sends the result over IPC.
import { fork } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { createKubernetesCluster, createLogger, createMemoryKeyValue, createPortico, loadConfig, resources } from '../../packages/core/dist/index.js';

const INSTANCES = Number(process.env.BENCH_KUBE_INSTANCES ?? 20_000);
const PROJECTS = 200;
const here = (p) => fileURLToPath(new URL(p, import.meta.url));

// The fake API server is test code in TypeScript; compiled as it is (no bundling), next to the repository's
// node_modules so its one import (@kubernetes/client-node) resolves.
const outDir = here('../../.tmp/bench');
await mkdir(outDir, { recursive: true });
const fakeJs = `${outDir}/fake-kube-api.mjs`;
await build({ entryPoints: [here('../../packages/core/test/support/fake-kube-api.ts')], outfile: fakeJs, format: 'esm', platform: 'node', logLevel: 'warning' });
const { startFakeKubeApi } = await import(fakeJs);

if (process.argv[2] === 'api') {
  // The API server's own work (it copies every object a list returns) must not count as Portico's.
  const api = await startFakeKubeApi({ statusSubresource: false, bookmarkIntervalMs: 60_000 });
  process.on('message', (m) => {
    if (m === 'stop') void api.stop().then(() => process.exit(0));
    if (m === 'clear') {
      api.clearRequests();
      process.send({ cleared: true });
    }
    if (m === 'lists') process.send({ lists: api.requests.filter((r) => r.method === 'GET' && !r.watch && r.path.endsWith('/scaleapps')).length });
  });
  process.send({ kubeconfigYaml: api.kubeconfigYaml });
} else {
const apiProcess = fork(fileURLToPath(import.meta.url), ['api']);
const ask = (m) => new Promise((resolve) => { apiProcess.once('message', resolve); apiProcess.send(m); });
const { kubeconfigYaml } = await new Promise((resolve) => apiProcess.once('message', resolve));
const kubeconfigPath = `${outDir}/kubeconfig-${process.pid}.yaml`;
await writeFile(kubeconfigPath, kubeconfigYaml);
const kubectl = createKubernetesCluster({ inCluster: false, kubeconfigPath, discovery: { missRefreshMs: 0 } });
const active = { state: 'Active', conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: new Date().toISOString() }] };
await kubectl.create(resources.rgd, {
  apiVersion: 'kro.run/v1alpha1',
  kind: 'ResourceGraphDefinition',
  metadata: { name: 'scale-app', annotations: { 'portico.dev/catalog': 'true' } },
  spec: { schema: { apiVersion: 'v1alpha1', kind: 'ScaleApp', spec: { replicas: 'integer | default=1' } }, resources: [{ id: 'config', template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '${schema.metadata.name}' } } }] },
});
await kubectl.patch(resources.rgd, 'scale-app', { status: active });
const project = (p) => `team-${String(p).padStart(3, '0')}`;
for (let p = 0; p < PROJECTS; p++) {
  await kubectl.create(resources.project, {
    apiVersion: 'portico.dev/v1alpha1',
    kind: 'Project',
    metadata: { name: project(p), namespace: 'portico' },
    spec: { description: '', destinations: [{ namespace: `ns-${project(p)}` }], roles: [] },
  });
}
const ref = await kubectl.discover('kro.run', 'v1alpha1', 'ScaleApp');
const seeded = performance.now();
const instanceStatus = { state: 'ACTIVE', conditions: [{ type: 'Ready', status: 'True', reason: 'AllResourcesReady', message: 'all resources are ready', lastTransitionTime: new Date().toISOString() }] };
for (let i = 0; i < INSTANCES; i += 50) {
  await Promise.all(
    Array.from({ length: Math.min(50, INSTANCES - i) }, (_, k) => {
      const n = i + k;
      const p = project(n % PROJECTS);
      return kubectl.create(ref, {
        apiVersion: 'kro.run/v1alpha1',
        kind: 'ScaleApp',
        metadata: { name: `app-${n}`, namespace: `ns-${p}`, labels: { 'portico.dev/project': p, 'portico.dev/rgd': 'scale-app' }, annotations: { 'portico.dev/created-by': 'bench' } },
        spec: { replicas: 1 },
        status: instanceStatus,
      });
    }),
  );
}
const seedMs = performance.now() - seeded;

const config = loadConfig({ PORTICO_PROFILE: 'development', PORTICO_CLUSTER: 'kubernetes', ADMIN_PASSWORD: 'bench-admin-password', LOG_LEVEL: 'warn' });
const cluster = createKubernetesCluster({ inCluster: false, kubeconfigPath });
await ask('clear');
const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();
const t0 = performance.now();
const portico = await createPortico({ config, cluster, kv: createMemoryKeyValue(), logger: createLogger('warn') });
const startMs = performance.now() - t0;
delay.disable();
const { lists } = await ask('lists');
const result = {
  instances: INSTANCES,
  seedMs,
  startMs,
  pages: lists,
  maxBlockMs: delay.max / 1e6,
  p99BlockMs: delay.percentile(99) / 1e6,
  rssMiB: process.memoryUsage.rss() / 2 ** 20,
};
await portico.stop();
await cluster.close();
await kubectl.close();
apiProcess.send('stop');
process.send?.(result);
if (!process.send) console.log(result);
process.exit(0);
}
