import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKubernetesCluster } from '../../src/adapters/kubernetes/index.js';
import { isPorticoError, type PorticoError } from '../../src/errors.js';
import { resources, type Cluster, type KubeObject, type WatchEvent } from '../../src/ports/cluster.js';
import { startFakeKubeApi, type FakeKubeApi } from '../support/fake-kube-api.js';

const secret = (name: string, namespace = 'team-a', labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace, labels },
  data: { key: Buffer.from('value').toString('base64') },
});

const project = (name: string, namespace = 'portico'): KubeObject => ({
  apiVersion: 'portico.dev/v1alpha1',
  kind: 'Project',
  metadata: { name, namespace },
  spec: { description: name },
});

async function failure(promise: Promise<unknown>): Promise<PorticoError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isPorticoError(err)) throw new Error(`expected a PorticoError, got ${String(err)}`);
  return err;
}

async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('Kubernetes cluster adapter', () => {
  let api: FakeKubeApi;
  let cluster: Cluster;

  beforeEach(async () => {
    api = await startFakeKubeApi({ bookmarkIntervalMs: 100 });
    cluster = createKubernetesCluster({ inCluster: false, kubeConfig: api.kubeConfig, requestTimeoutMs: 1_000 });
  });

  afterEach(async () => {
    await cluster.close();
    await api.stop();
  });

  describe('requests', () => {
    it('sends a merge patch with the expected resourceVersion in the body', async () => {
      const created = await cluster.create(resources.project, project('alpha'));
      api.clearRequests();
      await cluster.patch(resources.project, 'alpha', { spec: { description: 'new' } }, { namespace: 'portico', resourceVersion: created.metadata.resourceVersion });
      const [request] = api.requests;
      expect(request.method).toBe('PATCH');
      expect(request.path).toBe('/apis/portico.dev/v1alpha1/namespaces/portico/projects/alpha');
      expect(request.contentType).toBe('application/merge-patch+json');
      expect(request.body).toEqual({ spec: { description: 'new' }, metadata: { resourceVersion: created.metadata.resourceVersion } });
    });

    it('keeps the caller metadata of a patch next to the resourceVersion and does not change the caller object', async () => {
      const created = await cluster.create(resources.project, project('beta'));
      const patch = { metadata: { labels: { team: 'x' } } };
      const patched = await cluster.patch(resources.project, 'beta', patch, { namespace: 'portico', resourceVersion: created.metadata.resourceVersion });
      expect(patched.metadata.labels).toEqual({ team: 'x' });
      expect(patch).toEqual({ metadata: { labels: { team: 'x' } } });
    });

    it('lists page by page with the first page version, and fills in apiVersion/kind the API leaves out', async () => {
      const paged = createKubernetesCluster({ inCluster: false, kubeConfig: api.kubeConfig, listPageSize: 2 });
      for (const name of ['s1', 's2', 's3', 's4', 's5']) await cluster.create(resources.secret, secret(name));
      const before = api.resourceVersion();
      api.clearRequests();
      const listed = await paged.list(resources.secret, { namespace: 'team-a' });
      expect(listed.items.map((o) => o.metadata.name)).toEqual(['s1', 's2', 's3', 's4', 's5']);
      expect(listed.resourceVersion).toBe(before);
      expect(listed.items.every((o) => o.apiVersion === 'v1' && o.kind === 'Secret')).toBe(true);
      expect(api.requests.map((r) => r.query.limit)).toEqual(['2', '2', '2']);
      expect(api.requests[1].query.continue).toBeTruthy();
      await paged.close();
    });

    it('passes the label selector to the API server', async () => {
      await cluster.create(resources.secret, secret('tagged', 'team-a', { app: 'web' }));
      await cluster.create(resources.secret, secret('other', 'team-a', { app: 'db' }));
      const listed = await cluster.list(resources.secret, { labelSelector: 'app in (web,api)' });
      expect(listed.items.map((o) => o.metadata.name)).toEqual(['tagged']);
    });

    it('refuses names that would change the request path, without calling the API', async () => {
      api.clearRequests();
      for (const name of ['..', 'a/b', '.', '']) {
        const err = await failure(cluster.get(resources.secret, name, 'team-a'));
        expect(err.code).toBe('BAD_REQUEST');
      }
      expect((await failure(cluster.get(resources.secret, 'x', '..'))).code).toBe('BAD_REQUEST');
      expect((await failure(cluster.get(resources.secret, 'x'))).code).toBe('BAD_REQUEST'); // namespaced, no namespace
      expect(api.requests).toEqual([]);
    });

    it('reports objects the API server rejects as VALIDATION_FAILED with the field', async () => {
      const err = await failure(cluster.create(resources.secret, secret('Not_A_Name')));
      expect(err.code).toBe('VALIDATION_FAILED');
      expect(Object.keys(err.details.fields as object)).toEqual(['metadata.name']);
    });

    it('does not let a patch write status of a kind served with a status subresource (kro does that)', async () => {
      await cluster.create(resources.rgd, {
        apiVersion: 'kro.run/v1alpha1',
        kind: 'ResourceGraphDefinition',
        metadata: { name: 'web' },
        spec: { schema: { apiVersion: 'v1alpha1', kind: 'WebApp' } },
      });
      const patched = await cluster.patch(resources.rgd, 'web', { status: { state: 'Active' }, metadata: { labels: { a: 'b' } } });
      expect(patched.metadata.labels).toEqual({ a: 'b' });
      expect(patched.status).toBeUndefined();
    });
  });

  describe('failures', () => {
    it('maps an unreachable API server to SERVICE_UNAVAILABLE and reports it in health', async () => {
      await cluster.list(resources.namespace);
      expect(cluster.health()).toEqual({ ok: true });
      await api.setDown(true);
      const err = await failure(cluster.list(resources.namespace));
      expect(err.code).toBe('SERVICE_UNAVAILABLE');
      expect(err.retryAfter).toBeGreaterThan(0);
      expect(cluster.health().ok).toBe(false);
      expect(cluster.health().message).toMatch(/ECONNREFUSED/);
      await api.setDown(false);
      await cluster.list(resources.namespace);
      expect(cluster.health()).toEqual({ ok: true });
    });

    it('maps 5xx answers to SERVICE_UNAVAILABLE', async () => {
      api.failNext(1, 503);
      const err = await failure(cluster.get(resources.namespace, 'default'));
      expect(err.code).toBe('SERVICE_UNAVAILABLE');
      expect(cluster.health().ok).toBe(false);
      expect(await cluster.get(resources.namespace, 'default')).toBeUndefined();
      expect(cluster.health().ok).toBe(true);
    });

    it('gives up on a request that gets no answer within the timeout', async () => {
      api.hangRequests(true);
      const err = await failure(cluster.get(resources.namespace, 'default'));
      expect(err.code).toBe('SERVICE_UNAVAILABLE');
      expect(cluster.health().message).toMatch(/no answer within 1000 ms/);
    });

    it('treats refused credentials as an operator problem, not the end user being unauthenticated', async () => {
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromString(api.kubeconfigYaml.replace(`token: ${api.token}`, 'token: wrong'));
      const wrong = createKubernetesCluster({ inCluster: false, kubeConfig });
      const err = await failure(wrong.list(resources.namespace));
      expect(err.code).toBe('INTERNAL_ERROR');
      await wrong.close();
    });
  });

  describe('discovery', () => {
    it('caches a group/version and only asks again for a kind it does not know yet', async () => {
      const fast = createKubernetesCluster({ inCluster: false, kubeConfig: api.kubeConfig, discovery: { missRefreshMs: 0 } });
      api.clearRequests();
      expect(await fast.discover('kro.run', 'v1alpha1', 'ResourceGraphDefinition')).toEqual(resources.rgd);
      expect(await fast.discover('kro.run', 'v1alpha1', 'ResourceGraphDefinition')).toEqual(resources.rgd);
      expect(api.requests.filter((r) => r.path === '/apis/kro.run/v1alpha1')).toHaveLength(1);

      expect(await fast.discover('kro.run', 'v1alpha1', 'Database')).toBeUndefined();
      await fast.create(resources.rgd, {
        apiVersion: 'kro.run/v1alpha1',
        kind: 'ResourceGraphDefinition',
        metadata: { name: 'db' },
        spec: { schema: { apiVersion: 'v1alpha1', kind: 'Database', scope: 'Cluster' } },
      });
      expect(await fast.discover('kro.run', 'v1alpha1', 'Database')).toEqual({
        group: 'kro.run',
        version: 'v1alpha1',
        kind: 'Database',
        plural: 'databases',
        namespaced: false,
      });
      await fast.close();
    });

    it('answers undefined for a group the API server does not serve, and uses /api/v1 for the core group', async () => {
      api.clearRequests();
      expect(await cluster.discover('example.com', 'v1', 'Widget')).toBeUndefined();
      expect(await cluster.discover('', 'v1', 'Secret')).toEqual(resources.secret);
      expect(api.requests.map((r) => r.path)).toEqual(['/apis/example.com/v1', '/api/v1']);
    });

    it('uses the plural from discovery for instances of a declared kind', async () => {
      await cluster.create(resources.rgd, {
        apiVersion: 'kro.run/v1alpha1',
        kind: 'ResourceGraphDefinition',
        metadata: { name: 'policy' },
        spec: { schema: { apiVersion: 'v1alpha1', kind: 'Policy', group: 'example.org' } },
      });
      const ref = await cluster.discover('example.org', 'v1alpha1', 'Policy');
      expect(ref?.plural).toBe('policies');
      const created = await cluster.create(ref!, { apiVersion: 'example.org/v1alpha1', kind: 'Policy', metadata: { name: 'p1', namespace: 'team-a' }, spec: {} });
      expect(created.metadata.uid).toBeTruthy();
      expect(api.requests.at(-1)?.path).toBe('/apis/example.org/v1alpha1/namespaces/team-a/policies');
    });
  });

  describe('watch', () => {
    const open = (resourceVersion: string) => {
      const events: WatchEvent[] = [];
      const errors: { gone: boolean; message: string }[] = [];
      const watch = cluster.watch(resources.secret, { resourceVersion }, { onEvent: (e) => events.push(e), onError: (e) => errors.push(e) });
      return { events, errors, watch };
    };

    it('asks for bookmarks and passes them on', async () => {
      const { resourceVersion } = await cluster.list(resources.secret);
      const w = open(resourceVersion);
      await eventually(() => w.events.some((e) => e.type === 'BOOKMARK'), 'a bookmark');
      const request = api.requests.find((r) => r.watch)!;
      expect(request.query).toMatchObject({ watch: '1', resourceVersion, allowWatchBookmarks: 'true' });
      expect(w.errors).toEqual([]);
      w.watch.close();
    });

    it('reports a dropped stream exactly once and not as gone', async () => {
      const { resourceVersion } = await cluster.list(resources.secret);
      const w = open(resourceVersion);
      await eventually(() => api.openWatchCount() === 1, 'the watch to connect');
      api.dropWatches();
      await eventually(() => w.errors.length > 0, 'the error');
      await new Promise((r) => setTimeout(r, 100));
      expect(w.errors).toHaveLength(1);
      expect(w.errors[0].gone).toBe(false);
    });

    it('keeps a quiet stream open and delivers what was held back when it flows again', async () => {
      const { resourceVersion } = await cluster.list(resources.secret);
      const w = open(resourceVersion);
      await eventually(() => api.openWatchCount() === 1, 'the watch to connect');
      api.stallWatches(true);
      await cluster.create(resources.secret, secret('held-back'));
      await new Promise((r) => setTimeout(r, 300));
      const before = w.events.length;
      await new Promise((r) => setTimeout(r, 300));
      expect(w.events.length).toBe(before); // nothing at all, not even bookmarks
      expect(w.events.some((e) => e.object.metadata.name === 'held-back')).toBe(false);
      api.stallWatches(false);
      await eventually(() => w.events.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'held-back'), 'the held-back event');
      expect(w.errors).toEqual([]);
      w.watch.close();
    });

    it('reports nothing after close()', async () => {
      const { resourceVersion } = await cluster.list(resources.secret);
      const w = open(resourceVersion);
      await eventually(() => api.openWatchCount() === 1, 'the watch to connect');
      w.watch.close();
      await cluster.create(resources.secret, secret('after-close'));
      api.dropWatches();
      await new Promise((r) => setTimeout(r, 200));
      expect(w.events.filter((e) => e.type !== 'BOOKMARK')).toEqual([]);
      expect(w.errors).toEqual([]);
      await eventually(() => api.openWatchCount() === 0, 'the connection to close');
    });

    it('reports a watch that cannot connect as an error and marks health', async () => {
      const { resourceVersion } = await cluster.list(resources.secret);
      await api.setDown(true);
      const w = open(resourceVersion);
      await eventually(() => w.errors.length > 0, 'the error');
      expect(w.errors).toEqual([{ gone: false, message: expect.stringMatching(/ECONNREFUSED/) }]);
      expect(cluster.health().ok).toBe(false);
    });

    it('reports 410 Expired as gone after the history was compacted', async () => {
      const { resourceVersion } = await cluster.list(resources.secret);
      await cluster.create(resources.secret, secret('newer'));
      api.expireHistory();
      const w = open(resourceVersion);
      await eventually(() => w.errors.length > 0, 'the error');
      expect(w.errors).toEqual([{ gone: true, message: expect.stringMatching(/too old resource version/) }]);
      expect(w.events).toEqual([]);
    });

    it('closes open watches when the cluster client closes', async () => {
      const { resourceVersion } = await cluster.list(resources.secret);
      const w = open(resourceVersion);
      await eventually(() => api.openWatchCount() === 1, 'the watch to connect');
      await cluster.close();
      await eventually(() => api.openWatchCount() === 0, 'the connection to close');
      expect(w.errors).toEqual([]);
    });
  });

  describe('configuration', () => {
    it('reads a kubeconfig file', async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'portico-kubeconfig-'));
      try {
        const file = path.join(dir, 'config');
        await writeFile(file, api.kubeconfigYaml);
        const fromFile = createKubernetesCluster({ inCluster: false, kubeconfigPath: file });
        const created = await fromFile.create(resources.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'from-file' } });
        expect(created.status).toEqual({ phase: 'Active' });
        await fromFile.close();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('refuses in-cluster mode outside a pod with a message naming the setting', () => {
      const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
      delete process.env.KUBERNETES_SERVICE_HOST;
      delete process.env.KUBERNETES_SERVICE_PORT;
      try {
        expect(() => createKubernetesCluster({ inCluster: true })).toThrow(/KUBERNETES_IN_CLUSTER/);
      } finally {
        if (saved.host !== undefined) process.env.KUBERNETES_SERVICE_HOST = saved.host;
        if (saved.port !== undefined) process.env.KUBERNETES_SERVICE_PORT = saved.port;
      }
    });

    it('refuses a plain-HTTP server whose TLS verification is not explicitly skipped', () => {
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromString(api.kubeconfigYaml.replace('    insecure-skip-tls-verify: true\n', ''));
      expect(() => createKubernetesCluster({ inCluster: false, kubeConfig })).toThrow(/plain HTTP/);
    });
  });
});
