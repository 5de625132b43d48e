import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKubernetesCluster } from '../../src/adapters/kubernetes/index.js';
import { createInformer } from '../../src/cluster/informer.js';
import type { Informer, InformerEvent } from '../../src/cluster/informer-types.js';
import { resources, type Cluster, type KubeObject } from '../../src/ports/cluster.js';
import { startFakeKubeApi, type FakeKubeApi } from '../support/fake-kube-api.js';

/**
 * The informer over the Kubernetes adapter when the API server misbehaves: dropped streams, compacted
 * history, stalled connections, an API server that is down at start. Nothing may be lost.
 */

const NS = 'team-a';
const secret = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: NS }, data: {} });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function eventually(check: () => boolean, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return;
    await sleep(20);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('informer over the Kubernetes adapter', () => {
  let api: FakeKubeApi;
  let cluster: Cluster;
  let informer: Informer | undefined;
  let events: string[];

  const names = () => informer!.list().map((o) => o.metadata.name).sort();
  const watchRequests = () => api.requests.filter((r) => r.watch);
  const listRequests = () => api.requests.filter((r) => r.method === 'GET' && !r.watch && r.path.endsWith('/secrets'));

  const startInformer = async (opts: Parameters<typeof createInformer>[2]) => {
    informer = createInformer(cluster, resources.secret, opts);
    informer.on((e: InformerEvent) => events.push(`${e.type} ${e.object.metadata.name}`));
    await informer.start();
    await eventually(() => api.openWatchCount() === 1, 'the watch to connect');
  };

  beforeEach(async () => {
    api = await startFakeKubeApi({ bookmarkIntervalMs: 50 });
    cluster = createKubernetesCluster({ inCluster: false, kubeConfig: api.kubeConfig, requestTimeoutMs: 2_000 });
    events = [];
  });

  afterEach(async () => {
    informer?.stop();
    informer = undefined;
    await cluster.close();
    await api.stop();
  });

  it('resumes after a dropped watch without losing the changes made while it was disconnected', async () => {
    await cluster.create(resources.secret, secret('a'));
    // A long first backoff, so the writes below certainly happen while the informer is disconnected.
    await startInformer({ backoff: { initialMs: 500, maxMs: 1_000 } });
    const versionBefore = api.resourceVersion();
    const listsBefore = listRequests().length;

    api.dropWatches();
    await cluster.create(resources.secret, secret('b'));
    await cluster.patch(resources.secret, 'a', { metadata: { labels: { changed: 'yes' } } }, { namespace: NS });
    await cluster.delete(resources.secret, 'a', NS);

    await eventually(() => names().join() === 'b', 'the informer to catch up');
    expect(events).toEqual(['ADDED a', 'ADDED b', 'MODIFIED a', 'DELETED a']);
    // It resumed from the last version it had seen, with no relist.
    expect(watchRequests().at(-1)?.query.resourceVersion).toBe(versionBefore);
    expect(listRequests()).toHaveLength(listsBefore);
    expect(informer!.health()).toEqual({ ok: true });
  });

  it('relists after 410 Expired and emits exactly the difference', async () => {
    await cluster.create(resources.secret, secret('keep'));
    await cluster.create(resources.secret, secret('gone'));
    await startInformer({ backoff: { initialMs: 50, maxMs: 200 } });
    const listsBefore = listRequests().length;

    api.stallWatches(true); // the informer's stream goes quiet: it hears nothing of what follows
    await cluster.create(resources.secret, secret('new'));
    await cluster.delete(resources.secret, 'gone', NS);
    await cluster.patch(resources.secret, 'keep', { metadata: { labels: { v: '2' } } }, { namespace: NS });
    api.expireHistory(); // ... and the API server compacts the history it would resume from
    api.dropWatches();

    await eventually(() => names().join() === 'keep,new', 'the relist');
    expect(events.slice(2).sort()).toEqual(['ADDED new', 'DELETED gone', 'MODIFIED keep']);
    expect(informer!.get('keep', NS)?.metadata.labels).toEqual({ v: '2' });
    expect(listRequests().length).toBe(listsBefore + 1);
    await eventually(() => api.openWatchCount() === 1, 'the new watch');
  });

  it('restarts a stalled stream and catches up, while bookmarks keep a quiet but healthy one open', async () => {
    await startInformer({ stallMs: 600, backoff: { initialMs: 20, maxMs: 100 } });
    await sleep(1_500); // over two stall periods without changes: bookmarks (every 50 ms) keep the watch alive
    expect(watchRequests()).toHaveLength(1);

    api.stallWatches(true);
    await cluster.create(resources.secret, secret('during-stall'));
    await eventually(() => informer!.get('during-stall', NS) !== undefined, 'the informer to restart and catch up');
    expect(watchRequests().length).toBeGreaterThanOrEqual(2);
    expect(events).toEqual(['ADDED during-stall']);
  });

  it('starts once the API server comes up, with health not ok until then', async () => {
    await cluster.create(resources.secret, secret('existing'));
    await api.setDown(true);
    informer = createInformer(cluster, resources.secret, { backoff: { initialMs: 50, maxMs: 100 } });
    let started = false;
    const start = informer.start().then(() => (started = true));

    await sleep(400);
    expect(started).toBe(false);
    expect(cluster.health().ok).toBe(false);
    expect(cluster.health().message).toMatch(/ECONNREFUSED/);
    expect(informer.health().ok).toBe(false);

    await api.setDown(false);
    await start;
    expect(names()).toEqual(['existing']);
    expect(cluster.health()).toEqual({ ok: true });
    await eventually(() => informer!.health().ok, 'the informer to be healthy');
  });
});
