import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as yamlParse } from 'yaml';
import { createEmbeddedCluster, type EmbeddedCluster } from '../../src/adapters/embedded-cluster/index.js';
import { resources, type KubeObject, type ResourceRef, type WatchEvent } from '../../src/ports/cluster.js';
import { clusterContract } from '../contract/cluster-contract.js';
import { embeddedClusters } from '../support/embedded-clusters.js';
import { recordingLogger } from '../support/recording-logger.js';
import { eventually } from '../support/eventually.js';

clusterContract('embedded (memory)', async () => {
  const cluster = await createEmbeddedCluster({ kroStepMs: 10 });
  return { cluster, cleanup: () => cluster.close() };
});

clusterContract('embedded (persistent)', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'portico-ct-'));
  const cluster = await createEmbeddedCluster({ dataDir, kroStepMs: 10 });
  return {
    cluster,
    cleanup: async () => {
      await cluster.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
});

const { tempDir, start, stop } = embeddedClusters('portico-embedded-');

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(full)));
    else out.push(full);
  }
  return out;
}

const secret = (name: string, namespace = 'default', data: Record<string, string> = { k: 'dg==' }): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace },
  data,
});

/** webapp: deployment and service need config; ingress needs the service. Declared out of order on purpose. */
const webAppRgd = (name = 'webapp', kind = 'WebApp', extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'kro.run/v1alpha1',
  kind: 'ResourceGraphDefinition',
  metadata: { name },
  spec: {
    schema: { apiVersion: 'v1alpha1', kind, spec: { name: 'string', replicas: 'integer | default=1' }, ...extra },
    resources: [
      { id: 'ingress', template: { kind: 'Ingress', spec: { backend: '${service.metadata.name}' } } },
      { id: 'service', template: { kind: 'Service', spec: { selector: '${deployment.spec.selector.matchLabels}' } } },
      {
        id: 'deployment',
        template: { kind: 'Deployment', spec: { replicas: '${schema.spec.replicas}', env: '${config.data.url + "x"}' } },
        readyWhen: ['${deployment.status.availableReplicas == deployment.spec.replicas}'],
      },
      { id: 'config', template: { kind: 'ConfigMap', data: { url: 'http://${schema.spec.name}' } } },
    ],
  },
});

const webAppRef: ResourceRef = { group: 'kro.run', version: 'v1alpha1', kind: 'WebApp', plural: 'webapps', namespaced: true };

const webApp = (name: string, namespace = 'team-a', annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'kro.run/v1alpha1',
  kind: 'WebApp',
  metadata: { name, namespace, ...(annotations ? { annotations } : {}) },
  spec: { name, replicas: 1 },
});

const condition = (o: KubeObject | undefined, type: string) =>
  (o?.status?.conditions as { type: string; status: string; reason: string; message: string; observedGeneration: number }[] | undefined)?.find(
    (c) => c.type === type,
  );

function record(cluster: EmbeddedCluster, ref: ResourceRef, resourceVersion: string) {
  const events: WatchEvent[] = [];
  const watch = cluster.watch(ref, { resourceVersion }, { onEvent: (e) => events.push(e), onError: () => undefined });
  return { events, close: () => watch.close() };
}

describe('embedded cluster: persistence', () => {
  it('keeps objects across a restart; versions continue upward and deleted objects stay deleted', async () => {
    const dataDir = await tempDir();
    const first = await start({ dataDir });
    await first.create(resources.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
    const kept = await first.create(resources.secret, secret('kept', 'team-a'));
    await first.create(resources.secret, secret('gone', 'team-a'));
    const patched = await first.patch(resources.secret, 'kept', { metadata: { labels: { v: '2' } } }, { namespace: 'team-a' });
    await first.delete(resources.secret, 'gone', 'team-a');
    const { resourceVersion: before } = await first.list(resources.secret);
    await stop(first);

    const second = await start({ dataDir });
    const restored = await second.get(resources.secret, 'kept', 'team-a');
    expect(restored).toEqual(patched);
    expect(restored?.metadata.uid).toBe(kept.metadata.uid);
    expect(await second.get(resources.secret, 'gone', 'team-a')).toBeUndefined();
    expect((await second.get(resources.namespace, 'team-a'))?.metadata.name).toBe('team-a');
    expect(Number((await second.list(resources.secret)).resourceVersion)).toBeGreaterThanOrEqual(Number(before));
    const next = await second.create(resources.secret, secret('new', 'team-a'));
    expect(Number(next.metadata.resourceVersion)).toBeGreaterThan(Number(before));
  });

  it('a watch from a version handed out before the restart is told to relist', async () => {
    const dataDir = await tempDir();
    const first = await start({ dataDir });
    const { resourceVersion } = await first.list(resources.secret);
    await first.create(resources.secret, secret('a'));
    await stop(first);
    const second = await start({ dataDir });
    const errors: { gone: boolean }[] = [];
    second.watch(resources.secret, { resourceVersion }, { onEvent: () => undefined, onError: (e) => errors.push(e) });
    await eventually(async () => errors, (e) => e.length > 0, 'gone');
    expect(errors[0].gone).toBe(true);
  });

  it('keeps its state in a snapshot and a journal, leaving no temp files', async () => {
    const dataDir = await tempDir();
    const cluster = await start({ dataDir });
    await Promise.all(Array.from({ length: 20 }, (_, i) => cluster.create(resources.secret, secret(`s${i}`, 'default'))));
    await Promise.all(Array.from({ length: 20 }, (_, i) => cluster.patch(resources.secret, `s${i}`, { data: { n: Buffer.from(String(i)).toString('base64') } }, { namespace: 'default' })));
    await Promise.all(Array.from({ length: 10 }, (_, i) => cluster.delete(resources.secret, `s${i}`, 'default')));
    // A journal this short is not worth a snapshot yet (the lock file says which process has the data dir open).
    expect((await filesUnder(dataDir)).map((f) => path.relative(dataDir, f)).sort()).toEqual(['journal.ndjson', 'portico.lock']);
    const { items, resourceVersion } = await cluster.list(resources.secret, { namespace: 'default' });
    await stop(cluster);
    const again = await start({ dataDir });
    expect((await again.list(resources.secret, { namespace: 'default' })).items).toEqual(items);
    expect(Number((await again.list(resources.secret)).resourceVersion)).toBeGreaterThanOrEqual(Number(resourceVersion));
  });

  it('folds a journal longer than the state into the snapshot when it stops, and starts again from it', async () => {
    const dataDir = await tempDir();
    const files = async () => (await filesUnder(dataDir)).map((f) => path.relative(dataDir, f)).sort();
    const n = 11_000;
    const first = await start({ dataDir });
    await Promise.all(Array.from({ length: n }, (_, i) => first.create(resources.secret, secret(`s${i}`, 'default'))));
    await stop(first);
    // One journal line per object is no longer than the state: a stop leaves it as it is.
    expect(await files()).toEqual(['journal.ndjson']);
    const second = await start({ dataDir });
    await Promise.all(Array.from({ length: n / 5 }, (_, i) => second.patch(resources.secret, `s${i}`, { data: { n: 'MQ==' } }, { namespace: 'default' })));
    // Longer than the state now, though not yet twice as long (when a running cluster compacts).
    expect(await files()).toEqual(['journal.ndjson', 'portico.lock']);
    const { items } = await second.list(resources.secret, { namespace: 'default' });
    await stop(second);
    expect(await files()).toEqual(['journal.ndjson', 'snapshot.ndjson']);
    expect((await stat(path.join(dataDir, 'journal.ndjson'))).size).toBe(0);
    const third = await start({ dataDir });
    expect((await third.list(resources.secret, { namespace: 'default' })).items).toEqual(items);
  }, 60_000);

  it('drops a journal line torn by a crash with a warning, and removes temp files anywhere in the data dir', async () => {
    const dataDir = await tempDir();
    const first = await start({ dataDir });
    await first.create(resources.secret, secret('good'));
    await stop(first);
    // What a kill -9 leaves: half a journal line, and the temp files of writes that never reached their rename.
    await writeFile(path.join(dataDir, 'journal.ndjson'), '{"rv":999,"ref":{"group":"","vers', { flag: 'a' });
    await writeFile(path.join(dataDir, '.snapshot.ndjson.1234.tmp'), 'half-written');
    await writeFile(path.join(dataDir, '.meta.json.5678.tmp'), 'half-written');
    await mkdir(path.join(dataDir, 'objects', 'secrets._v1', 'default'), { recursive: true });
    await writeFile(path.join(dataDir, 'objects', 'secrets._v1', 'default', '.good.json.1234.tmp'), 'half-written');
    const { logger, warnings } = recordingLogger();
    const second = await start({ dataDir, logger });
    expect((await second.get(resources.secret, 'good', 'default'))?.metadata.name).toBe('good');
    expect((await filesUnder(dataDir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(warnings().some((w) => String(w.file).endsWith('journal.ndjson'))).toBe(true);
    // The torn tail is gone from the file, so the next write starts on a clean line.
    await second.create(resources.secret, secret('after'));
    await stop(second);
    const third = await start({ dataDir });
    expect((await third.list(resources.secret, { namespace: 'default' })).items.map((o) => o.metadata.name)).toEqual(['after', 'good']);
  });

  it('reads a data dir written one file per object by an earlier version, quarantining unreadable files', async () => {
    const dataDir = await tempDir();
    const dir = path.join(dataDir, 'objects', 'secrets._v1', 'default');
    await mkdir(dir, { recursive: true });
    const old = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'old', namespace: 'default', resourceVersion: '250', uid: 'u1' }, data: {} };
    await writeFile(path.join(dir, 'old.json'), JSON.stringify(old));
    await writeFile(path.join(dir, 'broken.json'), '{"apiVersion": "v1", "kind": "Sec');
    await writeFile(path.join(dataDir, 'meta.json'), JSON.stringify({ resourceVersion: '260' }));
    const { logger, warnings } = recordingLogger();
    const cluster = await start({ dataDir, logger });
    expect(await cluster.get(resources.secret, 'old', 'default')).toEqual(old);
    expect(await cluster.get(resources.secret, 'broken', 'default')).toBeUndefined();
    expect(warnings().some((w) => String(w.file).endsWith('broken.json'))).toBe(true);
    expect(Number((await cluster.list(resources.secret)).resourceVersion)).toBeGreaterThanOrEqual(260);
    await stop(cluster);
    const files = (await filesUnder(dataDir)).map((f) => path.relative(dataDir, f)).sort();
    expect(files).toEqual(['journal.ndjson', 'snapshot.ndjson']);
    expect(await (await start({ dataDir })).get(resources.secret, 'old', 'default')).toEqual(old);
  });
});

describe('embedded cluster: Kubernetes Events', () => {
  it('keeps the newest Events once there are more than the limit, as an API server expires old ones', async () => {
    const cluster = await start({ maxKubernetesEvents: 3 });
    for (let i = 1; i <= 5; i++) {
      await cluster.create(resources.event, {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `web.${i}`, namespace: 'dev' },
        involvedObject: { kind: 'WebApp', name: 'web', namespace: 'dev' },
        reason: `Step${i}`,
      });
    }
    const kept = await cluster.list(resources.event, { namespace: 'dev', fieldSelector: 'involvedObject.name=web' });
    expect(kept.items.map((e) => e.reason).sort()).toEqual(['Step3', 'Step4', 'Step5']);
  });
});

describe('embedded cluster: manifests', () => {
  const manifest = (description: string) => `
apiVersion: v1
kind: Namespace
metadata:
  name: team-a
---
apiVersion: portico.dev/v1alpha1
kind: Project
metadata:
  name: alpha
  namespace: team-a
spec:
  description: ${description}
  destinations: [{ namespace: team-a }]
---
apiVersion: kro.run/v1alpha1
kind: WebApp
metadata:
  name: shop
  namespace: team-a
spec:
  name: shop
---
apiVersion: example.com/v1
kind: Unknown
metadata:
  name: skipped
---
`;
  const rgdYaml = `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: webapp
spec:
  schema:
    apiVersion: v1alpha1
    kind: WebApp
    spec: { name: string }
  resources:
    - id: config
      template: { apiVersion: v1, kind: ConfigMap, data: { a: "\${schema.spec.name}" } }
`;

  it('records the last-applied hash earlier versions recorded for the same document, so an upgrade re-applies no file over API edits', async () => {
    const dataDir = await tempDir();
    const manifests = await tempDir();
    // Key order, nulls, nested arrays, escapes and non-ASCII: the hash is of the document with its keys sorted.
    const document = {
      kind: 'Secret',
      apiVersion: 'v1',
      metadata: { name: 'shop', namespace: 'dev', labels: { 'portico.dev/project': 'alpha', 'a"b': 'ü\u2028' } },
      data: { replicas: 2, ratio: 0.5, env: [{ value: null, name: 'A' }, [], {}], enabled: true },
    };
    await writeFile(path.join(manifests, 'secret.yaml'), `apiVersion: v1\nkind: Namespace\nmetadata: { name: dev }\n---\n${JSON.stringify(document)}\n`);
    const cluster = await start({ dataDir, manifests: [manifests] });
    const applied = await cluster.get(resources.secret, 'shop', 'dev');
    expect(applied?.metadata.annotations?.['portico.dev/last-applied-hash']).toBe('7ff9cea224119cc3ae4a02215b389bdfbbab9645c0a2781d48bc36998d9a087a');
    await stop(cluster);
  });

  it('applies manifests once (instances after their RGD); API changes survive a restart; edited files are re-applied', async () => {
    const dataDir = await tempDir();
    const manifests = await tempDir();
    // The instance comes in a file sorted before the RGD: ordering by kind must still make it known.
    await writeFile(path.join(manifests, 'a-team.yaml'), manifest('first'));
    await mkdir(path.join(manifests, 'nested'));
    await writeFile(path.join(manifests, 'nested', 'rgd.yml'), rgdYaml);
    await writeFile(path.join(manifests, 'notes.txt'), 'not yaml: [');
    const { logger, warnings } = recordingLogger();

    const first = await start({ dataDir, manifests: [manifests], logger });
    const project = await first.get(resources.project, 'alpha', 'team-a');
    expect(project?.spec.description).toBe('first');
    expect(project?.metadata.annotations?.['portico.dev/last-applied-hash']).toMatch(/^[0-9a-f]{64}$/);
    expect((await first.get(resources.rgd, 'webapp'))?.spec.schema.kind).toBe('WebApp');
    expect((await first.get(webAppRef, 'shop', 'team-a'))?.spec).toEqual({ name: 'shop' });
    expect(warnings().some((w) => w.kind === 'Unknown')).toBe(true);
    await first.patch(resources.project, 'alpha', { spec: { description: 'changed through the API' } }, { namespace: 'team-a' });
    await stop(first);

    const second = await start({ dataDir, manifests: [manifests] });
    expect((await second.get(resources.project, 'alpha', 'team-a'))?.spec.description).toBe('changed through the API');
    await stop(second);

    await writeFile(path.join(manifests, 'a-team.yaml'), manifest('edited file'));
    const third = await start({ dataDir, manifests: [manifests] });
    const reapplied = await third.get(resources.project, 'alpha', 'team-a');
    expect(reapplied?.spec).toEqual({ description: 'edited file', destinations: [{ namespace: 'team-a' }] });
    expect(reapplied?.metadata.generation).toBe(3);
  });

  it('a restart on unchanged files applies nothing (an object deleted through the API stays deleted); a changed file brings it back', async () => {
    const dataDir = await tempDir();
    const manifests = await tempDir();
    const secret = (value: string) => `apiVersion: v1\nkind: Namespace\nmetadata: { name: dev }\n---\napiVersion: v1\nkind: Secret\nmetadata: { name: token, namespace: dev }\ndata: { value: ${value} }\n`;
    await writeFile(path.join(manifests, 'secret.yaml'), secret('one'));
    const first = await start({ dataDir, manifests: [manifests] });
    expect((await first.get(resources.secret, 'token', 'dev'))?.data).toEqual({ value: 'one' });
    await first.delete(resources.secret, 'token', 'dev');
    await stop(first);

    const { logger, lines } = recordingLogger();
    const second = await start({ dataDir, manifests: [manifests], logger });
    expect(await second.get(resources.secret, 'token', 'dev')).toBeUndefined();
    expect(lines.some((l) => l.msg === 'manifests applied')).toBe(false);
    await stop(second);

    await writeFile(path.join(manifests, 'secret.yaml'), secret('two'));
    const third = await start({ dataDir, manifests: [manifests] });
    expect((await third.get(resources.secret, 'token', 'dev'))?.data).toEqual({ value: 'two' });
    await stop(third);
  });

  it('a document of a kind not known yet is applied at a later start, once its kind exists, though no file changed', async () => {
    const dataDir = await tempDir();
    const manifests = await tempDir();
    await writeFile(path.join(manifests, 'shop.yaml'), 'apiVersion: v1\nkind: Namespace\nmetadata: { name: team-a }\n---\napiVersion: kro.run/v1alpha1\nkind: WebApp\nmetadata: { name: shop, namespace: team-a }\nspec: { name: shop }\n');
    const first = await start({ dataDir, manifests: [manifests] });
    expect(await first.get(webAppRef, 'shop', 'team-a')).toBeUndefined();
    await first.create(resources.rgd, yamlParse(rgdYaml));
    await stop(first);

    const second = await start({ dataDir, manifests: [manifests] });
    expect((await second.get(webAppRef, 'shop', 'team-a'))?.spec).toEqual({ name: 'shop' });
    await stop(second);
  });

  it('a file that is not valid YAML or lacks a name fails start-up, naming the file', async () => {
    const manifests = await tempDir();
    const bad = path.join(manifests, 'bad.yaml');
    await writeFile(bad, 'apiVersion: v1\nkind: Secret\nmetadata: {name: [unclosed\n');
    await expect(createEmbeddedCluster({ manifests: [bad] })).rejects.toThrow(bad);
    await writeFile(bad, 'apiVersion: v1\nkind: Secret\nmetadata: {}\n');
    await expect(createEmbeddedCluster({ manifests: [manifests] })).rejects.toThrow(/bad\.yaml.*metadata\.name/);
  });
});

describe('embedded cluster: simulated kro', () => {
  it('activates RGDs with their topological order and makes the instance kind discoverable', async () => {
    const cluster = await start();
    expect(await cluster.discover('kro.run', 'v1alpha1', 'WebApp')).toBeUndefined();
    await cluster.create(resources.rgd, webAppRgd());
    await cluster.create(resources.rgd, webAppRgd('global', 'GlobalPolicy', { group: 'platform.example.com', scope: 'Cluster' }));
    await cluster.controller.settle();
    const rgd = await cluster.get(resources.rgd, 'webapp');
    expect(rgd?.status.state).toBe('Active');
    expect(condition(rgd, 'Ready')?.status).toBe('True');
    expect(rgd?.status.topologicalOrder).toEqual(['config', 'deployment', 'service', 'ingress']);
    expect(await cluster.discover('kro.run', 'v1alpha1', 'WebApp')).toEqual(webAppRef);
    expect(await cluster.discover('platform.example.com', 'v1alpha1', 'GlobalPolicy')).toEqual({
      group: 'platform.example.com',
      version: 'v1alpha1',
      kind: 'GlobalPolicy',
      plural: 'globalpolicies',
      namespaced: false,
    });
  });

  it("discovery follows RGDs and CRDs as they come and go, and its answers are the caller's own", async () => {
    const cluster = await start();
    const crdRef = { group: 'example.com', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true };
    const crd = (versions: { name: string; served: boolean }[]) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: { group: 'example.com', names: { kind: 'Widget', plural: 'widgets' }, scope: 'Namespaced', versions },
    });
    const crdResource = { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions', namespaced: false };
    expect(await cluster.discover('example.com', 'v1', 'Widget')).toBeUndefined();
    await cluster.create(crdResource, crd([{ name: 'v1', served: true }]));
    expect(await cluster.discover('example.com', 'v1', 'Widget')).toEqual(crdRef);
    await cluster.patch(crdResource, 'widgets.example.com', { spec: { versions: [{ name: 'v1', served: false }] } });
    expect(await cluster.discover('example.com', 'v1', 'Widget')).toBeUndefined();

    await cluster.create(resources.rgd, webAppRgd());
    await cluster.controller.settle();
    const found = (await cluster.discover('kro.run', 'v1alpha1', 'WebApp'))!;
    expect(found).toEqual(webAppRef);
    found.plural = 'changed-by-the-caller';
    expect(await cluster.discover('kro.run', 'v1alpha1', 'WebApp')).toEqual(webAppRef);
    await cluster.delete(resources.rgd, 'webapp');
    await cluster.controller.settle();
    expect(await cluster.discover('kro.run', 'v1alpha1', 'WebApp')).toBeUndefined();
  });

  it('marks an RGD with a dependency cycle Inactive', async () => {
    const cluster = await start();
    await cluster.create(resources.rgd, {
      apiVersion: 'kro.run/v1alpha1',
      kind: 'ResourceGraphDefinition',
      metadata: { name: 'loop' },
      spec: {
        schema: { apiVersion: 'v1alpha1', kind: 'Loop', spec: {} },
        resources: [
          { id: 'a', template: { x: '${b.status.y}' } },
          { id: 'b', template: { y: '${a.status.x}' } },
        ],
      },
    });
    await cluster.controller.settle();
    const rgd = await cluster.get(resources.rgd, 'loop');
    expect(rgd?.status.state).toBe('Inactive');
    expect(condition(rgd, 'Ready')?.status).toBe('False');
    expect(condition(rgd, 'GraphVerified')?.message).toMatch(/cycle/);
  });

  it('orders resources by references inside nested CEL braces, as the catalog reads them', async () => {
    const cluster = await start();
    await cluster.create(resources.rgd, {
      apiVersion: 'kro.run/v1alpha1',
      kind: 'ResourceGraphDefinition',
      metadata: { name: 'nested' },
      spec: {
        schema: { apiVersion: 'v1alpha1', kind: 'Nested', spec: {} },
        resources: [
          // A map literal inside the expression: a reader that stops at the first '}' misses `service`.
          { id: 'app', template: { host: "${ {'k': config.data.host}['k'] + service.metadata.name }" } },
          { id: 'config', template: { kind: 'ConfigMap' } },
          { id: 'service', template: { kind: 'Service' } },
        ],
      },
    });
    await cluster.controller.settle();
    const rgd = await cluster.get(resources.rgd, 'nested');
    expect(rgd?.status.state).toBe('Active');
    expect(rgd?.status.topologicalOrder).toEqual(['config', 'service', 'app']);
  });

  it('walks an instance IN_PROGRESS → ACTIVE, one more resource ready per step, visible to watchers', async () => {
    const cluster = await start();
    await cluster.create(resources.rgd, webAppRgd());
    await cluster.controller.settle();
    const { resourceVersion } = await cluster.list(webAppRef);
    const watch = record(cluster, webAppRef, resourceVersion);
    await cluster.create(webAppRef, webApp('shop'));
    await cluster.controller.settle();
    const shop = await cluster.get(webAppRef, 'shop', 'team-a');
    expect(shop?.status.state).toBe('ACTIVE');
    expect(shop?.metadata.finalizers).toEqual(['kro.run/finalizer']);
    expect(condition(shop, 'Ready')).toMatchObject({ status: 'True', reason: 'AllResourcesReady', observedGeneration: 1 });
    expect(condition(shop, 'ResourcesReady')).toMatchObject({ status: 'True', message: '4/4 resources ready' });
    expect(condition(shop, 'InstanceManaged')?.status).toBe('True');
    expect(condition(shop, 'GraphResolved')?.status).toBe('True');

    await eventually(async () => watch.events, (e) => e.some((x) => x.object.status?.state === 'ACTIVE'), 'the ACTIVE event');
    watch.close();
    const progress = watch.events.map((e) => `${e.type} ${e.object.status?.state ?? '-'} ${condition(e.object, 'ResourcesReady')?.message ?? '-'}`);
    expect(progress).toEqual([
      'ADDED - -',
      'MODIFIED IN_PROGRESS 0/4 resources ready',
      'MODIFIED IN_PROGRESS 1/4 resources ready',
      'MODIFIED IN_PROGRESS 2/4 resources ready',
      'MODIFIED IN_PROGRESS 3/4 resources ready',
      'MODIFIED ACTIVE 4/4 resources ready',
    ]);
    const inProgress = watch.events[1].object;
    expect(condition(inProgress, 'Ready')).toMatchObject({ status: 'False', reason: 'Progressing', observedGeneration: 1 });
    expect(condition(inProgress, 'Ready')?.message).toContain('config');
    const versions = watch.events.map((e) => Number(e.object.metadata.resourceVersion));
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
  });

  it('stops the walk at an injected failure with state ERROR naming the resource, and retries once it is removed', async () => {
    const cluster = await start();
    await cluster.create(resources.rgd, webAppRgd());
    await cluster.controller.settle();
    await cluster.create(webAppRef, webApp('broken', 'team-a', { 'portico.dev/simulate-failure': 'service' }));
    await cluster.controller.settle();
    const broken = await cluster.get(webAppRef, 'broken', 'team-a');
    expect(broken?.status.state).toBe('ERROR');
    expect(condition(broken, 'Ready')).toMatchObject({ status: 'False', reason: 'ResourceFailed' });
    expect(condition(broken, 'Ready')?.message).toContain('service');
    expect(condition(broken, 'ResourcesReady')?.message).toMatch(/^2\/4 resources ready/);

    await cluster.patch(webAppRef, 'broken', { metadata: { annotations: { 'portico.dev/simulate-failure': null } } }, { namespace: 'team-a' });
    await cluster.controller.settle();
    expect((await cluster.get(webAppRef, 'broken', 'team-a'))?.status.state).toBe('ACTIVE');
  });

  it('failResource turns an ACTIVE instance into ERROR', async () => {
    const cluster = await start();
    await cluster.create(resources.rgd, webAppRgd());
    await cluster.create(webAppRef, webApp('shop'));
    await cluster.controller.settle();
    await cluster.controller.failResource(webAppRef, 'team-a', 'shop', 'deployment');
    await cluster.controller.settle();
    const shop = await cluster.get(webAppRef, 'shop', 'team-a');
    expect(shop?.status.state).toBe('ERROR');
    expect(condition(shop, 'Ready')?.message).toContain('deployment');
  });

  it('deletes an instance through DELETING, then removes it', async () => {
    const cluster = await start();
    await cluster.create(resources.rgd, webAppRgd());
    await cluster.create(webAppRef, webApp('shop'));
    await cluster.controller.settle();
    const { resourceVersion } = await cluster.list(webAppRef);
    const watch = record(cluster, webAppRef, resourceVersion);
    await cluster.delete(webAppRef, 'shop', 'team-a');
    const terminating = await cluster.get(webAppRef, 'shop', 'team-a');
    expect(terminating?.metadata.deletionTimestamp).toBeTruthy();
    await cluster.controller.settle();
    expect(await cluster.get(webAppRef, 'shop', 'team-a')).toBeUndefined();
    await eventually(async () => watch.events, (e) => e.some((x) => x.type === 'DELETED'), 'the DELETED event');
    watch.close();
    expect(watch.events.map((e) => `${e.type} ${e.object.status?.state}`)).toEqual(['MODIFIED ACTIVE', 'MODIFIED DELETING', 'DELETED DELETING']);
    expect(condition(watch.events[1].object, 'Ready')).toMatchObject({ status: 'False', reason: 'Deleting' });
  });

  it('re-walks with the new observedGeneration after a spec change', async () => {
    const cluster = await start();
    await cluster.create(resources.rgd, webAppRgd());
    await cluster.create(webAppRef, webApp('shop'));
    await cluster.controller.settle();
    const { resourceVersion } = await cluster.list(webAppRef);
    const watch = record(cluster, webAppRef, resourceVersion);
    const patched = await cluster.patch(webAppRef, 'shop', { spec: { replicas: 3 } }, { namespace: 'team-a' });
    expect(patched.metadata.generation).toBe(2);
    await cluster.controller.settle();
    const shop = await cluster.get(webAppRef, 'shop', 'team-a');
    expect(shop?.status.state).toBe('ACTIVE');
    expect(condition(shop, 'Ready')?.observedGeneration).toBe(2);
    await eventually(async () => watch.events, (e) => e.some((x) => x.object.status?.state === 'ACTIVE'), 'the ACTIVE event');
    watch.close();
    const walk = watch.events.slice(1).map((e) => `${e.object.status.state} ${condition(e.object, 'ResourcesReady')?.message} g${condition(e.object, 'Ready')?.observedGeneration}`);
    expect(walk[0]).toBe('IN_PROGRESS 0/4 resources ready g2');
    expect(walk.at(-1)).toBe('ACTIVE 4/4 resources ready g2');
  });

  it('resumes its work after a restart of a persistent cluster', async () => {
    const dataDir = await tempDir();
    const first = await start({ dataDir, kroStepMs: 60_000 });
    await first.create(resources.rgd, webAppRgd());
    await first.create(webAppRef, webApp(`app-${randomUUID().slice(0, 6)}`));
    await stop(first);
    const second = await start({ dataDir });
    await second.controller.settle();
    const [app] = (await second.list(webAppRef)).items;
    expect(app.status.state).toBe('ACTIVE');
  });

  it('with kroStepMs 0 walks as fast as it can and then stays idle', async () => {
    const cluster = await start({ kroStepMs: 0 });
    await cluster.create(resources.rgd, webAppRgd());
    await cluster.create(webAppRef, webApp('quick'));
    await cluster.controller.settle();
    expect((await cluster.get(webAppRef, 'quick', 'team-a'))?.status.state).toBe('ACTIVE');
    const idleVersion = (await cluster.list(webAppRef)).resourceVersion;
    await new Promise((r) => setTimeout(r, 50));
    expect((await cluster.list(webAppRef)).resourceVersion).toBe(idleVersion);
  });

  it('settle() resolves at once when there is nothing to do, and close() stops the controller', async () => {
    const cluster = await start({ kroStepMs: 60_000 });
    await cluster.controller.settle();
    await cluster.create(resources.rgd, webAppRgd());
    await cluster.create(webAppRef, webApp('shop'));
    await stop(cluster);
    await cluster.controller.settle();
    const before = (await cluster.list(webAppRef)).resourceVersion;
    await new Promise((r) => setTimeout(r, 50));
    expect((await cluster.list(webAppRef)).resourceVersion).toBe(before);
    expect((await cluster.get(webAppRef, 'shop', 'team-a'))?.status?.state).not.toBe('ACTIVE');
    await expect(cluster.create(resources.secret, secret('late'))).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });
});

describe('embedded cluster: API details', () => {
  it('requires a namespace for namespaced kinds and rejects invalid names', async () => {
    const cluster = await start();
    await expect(cluster.create(resources.secret, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(cluster.get(resources.secret, 'x')).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(cluster.create(resources.secret, secret('../escape'))).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(cluster.list(resources.secret, { labelSelector: 'a in (b)' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('ignores patches to server-owned metadata and treats an unchanged patch as a no-op', async () => {
    const cluster = await start();
    const created = await cluster.create(resources.secret, secret('s'));
    const patched = await cluster.patch(
      resources.secret,
      's',
      { metadata: { uid: 'forged', name: 'other', resourceVersion: '1', creationTimestamp: '2000-01-01T00:00:00Z', generation: 9 } },
      { namespace: 'default' },
    );
    expect(patched).toEqual(created);
    expect((await cluster.get(resources.secret, 'other', 'default'))).toBeUndefined();
  });

  it('stores its own copy of a patch: changing the caller’s patch afterwards changes nothing stored', async () => {
    const cluster = await start();
    const project = { apiVersion: 'portico.dev/v1alpha1', kind: 'Project', metadata: { name: 'p', namespace: 'default' }, spec: { roles: [] } };
    await cluster.create(resources.project, project);
    const roles = [{ name: 'viewer', users: ['alice'] }];
    const patch = { spec: { roles } };
    const patched = await cluster.patch(resources.project, 'p', patch, { namespace: 'default' });
    roles[0]!.users.push('mallory');
    roles.push({ name: 'admin', users: ['mallory'] });
    const stored = await cluster.get(resources.project, 'p', 'default');
    expect(stored?.spec).toEqual({ roles: [{ name: 'viewer', users: ['alice'] }] });
    expect(patched.spec).toEqual({ roles: [{ name: 'viewer', users: ['alice'] }] });
  });

  it('sends BOOKMARK events with the current version', async () => {
    const cluster = await start({ bookmarkMs: 20 });
    const { resourceVersion } = await cluster.list(resources.secret);
    const events: WatchEvent[] = [];
    const w = cluster.watch(resources.secret, { resourceVersion }, { onEvent: (e) => events.push(e), onError: () => undefined });
    await cluster.create(resources.rgd, webAppRgd());
    await eventually(async () => events, (e) => e.some((x) => x.type === 'BOOKMARK' && Number(x.object.metadata.resourceVersion) > Number(resourceVersion)), 'a bookmark');
    w.close();
  });

  it('answers gone for versions trimmed from the event log', async () => {
    const cluster = await start({ maxWatchEvents: 10 });
    const { resourceVersion } = await cluster.list(resources.secret);
    for (let i = 0; i < 15; i++) await cluster.create(resources.secret, secret(`s${i}`));
    const errors: { gone: boolean }[] = [];
    cluster.watch(resources.secret, { resourceVersion }, { onEvent: () => undefined, onError: (e) => errors.push(e) });
    const recent = (await cluster.list(resources.secret)).resourceVersion;
    const events: WatchEvent[] = [];
    cluster.watch(resources.secret, { resourceVersion: String(Number(recent) - 3) }, { onEvent: (e) => events.push(e), onError: (e) => errors.push(e) });
    await eventually(async () => [errors.length, events.length], ([e, v]) => e === 1 && v === 3, 'gone for the old watch, replay for the recent one');
    expect(errors[0].gone).toBe(true);
  });

  it('a watch on a cluster-scoped kind ignores a namespace', async () => {
    const cluster = await start();
    const { resourceVersion } = await cluster.list(resources.namespace);
    const events: WatchEvent[] = [];
    const w = cluster.watch(resources.namespace, { namespace: 'default', resourceVersion }, { onEvent: (e) => events.push(e), onError: () => undefined });
    await cluster.create(resources.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-z' } });
    await eventually(async () => events, (e) => e.length === 1, 'the namespace event');
    w.close();
  });

  it('uses the injected clock for timestamps', async () => {
    const cluster = await start({ now: () => new Date('2030-05-06T07:08:09.123Z') });
    const created = await cluster.create(resources.secret, secret('clock'));
    expect(created.metadata.creationTimestamp).toBe('2030-05-06T07:08:09Z');
  });
});
