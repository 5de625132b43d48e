import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedCluster, type EmbeddedCluster } from '../../src/adapters/embedded-cluster/index.js';
import { createInformer } from '../../src/cluster/informer.js';
import type { Informer, InformerEvent } from '../../src/cluster/informer-types.js';
import { unavailable } from '../../src/errors.js';
import { resources, type Cluster, type KubeObject, type WatchEvent, type WatchHandlers } from '../../src/ports/cluster.js';

const fast = { initialMs: 10, maxMs: 100 };
const opened: { close(): unknown }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close();
});

async function embedded(opts: Parameters<typeof createEmbeddedCluster>[0] = {}) {
  const cluster = await createEmbeddedCluster({ kroStepMs: 5, ...opts });
  opened.push(cluster);
  return cluster;
}

function track(informer: Informer) {
  opened.push({ close: () => informer.stop() });
  const events: InformerEvent[] = [];
  informer.on((e) => events.push(e));
  return events;
}

const secret = (name: string, namespace = 'default', labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace, labels },
  data: { v: 'MQ==' },
});

async function eventually(check: () => boolean, what: string, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const summary = (events: InformerEvent[]) =>
  events.map((e) => `${e.type} ${e.object.metadata.name}${e.previous ? ` (was ${e.previous.metadata.labels?.v ?? '-'})` : ''}`);

/**
 * Wraps a cluster so a test can break its watches: mute them (events silently lost), end them with an
 * error, inject events, or make the first lists fail.
 */
function faulty(inner: EmbeddedCluster, opts: { failLists?: number; muteFirstWatch?: boolean } = {}) {
  let failLists = opts.failLists ?? 0;
  const calls = { list: 0, watch: 0 };
  const watches: { handlers: WatchHandlers; muted: boolean; closed: boolean }[] = [];
  const cluster: Cluster = {
    ...inner,
    async list(ref, listOpts) {
      calls.list += 1;
      if (failLists > 0) {
        failLists -= 1;
        throw unavailable('cluster', 1);
      }
      return inner.list(ref, listOpts);
    },
    watch(ref, watchOpts, handlers) {
      calls.watch += 1;
      const entry = { handlers, muted: calls.watch === 1 && !!opts.muteFirstWatch, closed: false };
      watches.push(entry);
      const w = inner.watch(ref, watchOpts, {
        onEvent: (e) => !entry.muted && !entry.closed && handlers.onEvent(e),
        onError: (e) => !entry.closed && handlers.onError(e),
      });
      return {
        close() {
          entry.closed = true;
          w.close();
        },
      };
    },
  };
  const current = () => watches.filter((w) => !w.closed).at(-1)!;
  return {
    cluster,
    calls,
    mute: () => void (current().muted = true),
    fail: (gone: boolean) => current().handlers.onError({ gone, message: gone ? 'too old resource version' : 'connection reset' }),
    inject: (event: WatchEvent) => current().handlers.onEvent(event),
  };
}

describe('informer', () => {
  it('syncs from a list and then follows ADDED, MODIFIED and DELETED with the previous object', async () => {
    const cluster = await embedded();
    await cluster.create(resources.secret, secret('a', 'default', { v: '1' }));
    await cluster.create(resources.secret, secret('other-ns', 'elsewhere'));
    const informer = createInformer(cluster, resources.secret, { namespace: 'default' });
    expect(informer.health().ok).toBe(false);
    const events = track(informer);
    await informer.start();
    expect(informer.health()).toEqual({ ok: true });
    expect(informer.list().map((o) => o.metadata.name)).toEqual(['a']);
    expect(informer.get('a', 'default')?.metadata.labels).toEqual({ v: '1' });
    expect(summary(events)).toEqual(['ADDED a']);

    await cluster.create(resources.secret, secret('b', 'default', { v: '1' }));
    await cluster.patch(resources.secret, 'a', { metadata: { labels: { v: '2' } } }, { namespace: 'default' });
    await cluster.delete(resources.secret, 'b', 'default');
    await cluster.create(resources.secret, secret('c', 'elsewhere'));
    await eventually(() => events.length >= 4, 'three more events');
    expect(summary(events)).toEqual(['ADDED a', 'ADDED b', 'MODIFIED a (was 1)', 'DELETED b (was 1)']);
    expect(informer.get('a', 'default')?.metadata.labels).toEqual({ v: '2' });
    expect(informer.get('b', 'default')).toBeUndefined();
  });

  it('hands out frozen objects, so no caller can corrupt the cache', async () => {
    const cluster = await embedded();
    await cluster.create(resources.secret, secret('a'));
    const informer = createInformer(cluster, resources.secret);
    track(informer);
    await informer.start();
    const cached = informer.get('a', 'default')!;
    expect(() => {
      cached.metadata.labels!.x = 'y';
    }).toThrow();
    expect(informer.get('a', 'default')?.metadata.labels).toEqual({});
  });

  it('relists after 410 Gone and emits exactly the difference', async () => {
    const inner = await embedded();
    await inner.create(resources.secret, secret('keep', 'default', { v: '1' }));
    await inner.create(resources.secret, secret('change', 'default', { v: '1' }));
    await inner.create(resources.secret, secret('remove', 'default', { v: '1' }));
    const f = faulty(inner);
    const informer = createInformer(f.cluster, resources.secret, { backoff: fast });
    const events = track(informer);
    await informer.start();
    events.length = 0;

    f.mute(); // the changes below are lost by the watch...
    await inner.patch(resources.secret, 'change', { metadata: { labels: { v: '2' } } }, { namespace: 'default' });
    await inner.delete(resources.secret, 'remove', 'default');
    await inner.create(resources.secret, secret('new', 'default', { v: '1' }));
    f.fail(true); // ...and the server then says the watch version is gone

    await eventually(() => events.length >= 3, 'the relist difference');
    expect(f.calls.list).toBe(2);
    expect(summary(events).sort()).toEqual(['ADDED new', 'DELETED remove (was 1)', 'MODIFIED change (was 1)']);
    expect(informer.list().map((o) => o.metadata.name).sort()).toEqual(['change', 'keep', 'new']);

    await inner.create(resources.secret, secret('after'));
    await eventually(() => events.length >= 4, 'events from the new watch');
    expect(events[3]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'after' } } });
  });

  it('restarts a failed watch with backoff from its last version, reporting unhealthy meanwhile', async () => {
    const inner = await embedded();
    const f = faulty(inner);
    const informer = createInformer(f.cluster, resources.secret, { backoff: { initialMs: 50, maxMs: 100 } });
    const events = track(informer);
    await informer.start();

    f.mute();
    await inner.create(resources.secret, secret('during-outage'));
    f.fail(false);
    expect(informer.health().ok).toBe(false);
    expect(informer.health().message).toMatch(/reconnecting/);
    await eventually(() => events.length >= 1, 'the missed event to be replayed');
    expect(summary(events)).toEqual(['ADDED during-outage']);
    expect(f.calls.watch).toBe(2);
    expect(f.calls.list).toBe(1); // resumed, no relist needed
    expect(informer.health().ok).toBe(true);
  });

  it('does not report healthy merely because a watch was reopened: only after an event or a quiet moment', async () => {
    const inner = await embedded();
    const f = faulty(inner);
    const informer = createInformer(f.cluster, resources.secret, { backoff: { initialMs: 20, maxMs: 20 } });
    track(informer);
    await informer.start();

    f.fail(false);
    await eventually(() => f.calls.watch === 2, 'the watch to be reopened');
    // Reopened, no event yet: an API that refuses the stream a moment later must not flicker to healthy.
    expect(informer.health().ok).toBe(false);
    await inner.create(resources.secret, secret('proof-of-life'));
    await eventually(() => informer.health().ok, 'an event to prove the stream works');
  });

  it('restarts a watch that went silent (no events, no bookmarks) after stallMs', async () => {
    const inner = await embedded();
    const f = faulty(inner, { muteFirstWatch: true });
    const informer = createInformer(f.cluster, resources.secret, { stallMs: 100, backoff: fast });
    const events = track(informer);
    await informer.start();
    await inner.create(resources.secret, secret('unseen-until-restart'));
    await eventually(() => events.length >= 1, 'the event after the stall restart');
    expect(f.calls.watch).toBeGreaterThanOrEqual(2);
    expect(summary(events)).toEqual(['ADDED unseen-until-restart']);
  });

  it('keeps a quiet but healthy watch open thanks to bookmarks', async () => {
    const inner = await embedded({ bookmarkMs: 20 });
    const f = faulty(inner);
    const informer = createInformer(f.cluster, resources.secret, { stallMs: 200, backoff: fast });
    track(informer);
    await informer.start();
    await new Promise((r) => setTimeout(r, 500));
    expect(f.calls.watch).toBe(1);
    expect(informer.health().ok).toBe(true);
  });

  it('start() keeps retrying a failing first list and resolves once the API answers', async () => {
    const inner = await embedded();
    await inner.create(resources.secret, secret('a'));
    const f = faulty(inner, { failLists: 3 });
    const informer = createInformer(f.cluster, resources.secret, { backoff: fast });
    track(informer);
    const started = informer.start();
    await new Promise((r) => setTimeout(r, 5));
    expect(informer.health()).toMatchObject({ ok: false });
    await started;
    expect(f.calls.list).toBe(4);
    expect(informer.list().map((o) => o.metadata.name)).toEqual(['a']);
    expect(informer.health().ok).toBe(true);
  });

  it('ignores a MODIFIED event that is not newer than the cached object', async () => {
    const inner = await embedded();
    await inner.create(resources.secret, secret('a', 'default', { v: '1' }));
    const f = faulty(inner);
    const informer = createInformer(f.cluster, resources.secret);
    const events = track(informer);
    await informer.start();
    const cached = informer.get('a', 'default')!;
    const stale = structuredClone(cached) as KubeObject;
    stale.metadata.labels = { v: 'stale' };
    stale.metadata.resourceVersion = String(Number(cached.metadata.resourceVersion) - 1);
    f.inject({ type: 'MODIFIED', object: stale });
    expect(informer.get('a', 'default')?.metadata.labels).toEqual({ v: '1' });
    expect(summary(events)).toEqual(['ADDED a']);
  });

  it('stop() ends the watch; a start() still waiting is rejected', async () => {
    const inner = await embedded();
    const informer = createInformer(inner, resources.secret);
    const events = track(informer);
    await informer.start();
    informer.stop();
    await inner.create(resources.secret, secret('after-stop'));
    await new Promise((r) => setTimeout(r, 30));
    expect(events).toEqual([]);
    expect(informer.health().ok).toBe(false);

    const f = faulty(inner, { failLists: 1000 });
    const never = createInformer(f.cluster, resources.secret, { backoff: fast });
    const pending = never.start();
    never.stop();
    await expect(pending).rejects.toThrow(/stopped/);
  });
});
