import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisKeyValue } from '../../src/adapters/redis-kv.js';
import { unavailable } from '../../src/errors.js';
import { createEvents, type Events, type PublishedEvent } from '../../src/events/index.js';
import { createLogger } from '../../src/logger.js';
import { deleteRedisKeys, redisAddress } from '../support/redis.js';
import { wrapKv } from '../support/wrap-kv.js';
import type { KeyValue } from '../../src/ports/keyvalue.js';
import type { DomainEvent } from '../../src/types.js';

const logger = createLogger('silent');
const prefix = `portico-test:${process.pid}:${randomUUID()}:`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Faults shared by every replica's store, as a flaky network to Redis would cause them. */
interface Faults {
  /** Publishes whose message contains this text fail, this many times. */
  failPublish?: { containing: string; times: number };
  /** Publishes whose message contains this text are held back this long (they overtake nothing, others overtake them). */
  delayPublish?: { containing: string; ms: number };
  /** Subscription gaps to report (the store reconnected and may have lost messages meanwhile). */
  gaps: Array<() => void>;
}

function faultyKv(inner: KeyValue, faults: Faults): KeyValue {
  return wrapKv(inner, {
    async publish(channel, message) {
      const fail = faults.failPublish;
      if (fail && fail.times > 0 && message.includes(fail.containing)) {
        fail.times--;
        throw unavailable('redis', 1);
      }
      const delay = faults.delayPublish;
      if (delay && message.includes(delay.containing)) await sleep(delay.ms);
      return inner.publish(channel, message);
    },
    subscribe(channel, onMessage, onGap) {
      if (onGap) faults.gaps.push(onGap);
      return inner.subscribe(channel, onMessage, onGap);
    },
  });
}

const opened: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const o of opened.reverse()) await o.close();
  await deleteRedisKeys(prefix);
});

/** Two replicas on one Redis, each watching the same cluster (so both observe every change). */
async function twoReplicas(faults: Faults): Promise<Events[]> {
  const replicas = ['replica-a', 'replica-b'].map((replicaId) => {
    const kv = createRedisKeyValue({ address: redisAddress, prefix, logger });
    const bus = createEvents({ kv: faultyKv(kv, faults), logger, replicaId });
    opened.push(kv, bus);
    return bus;
  });
  await Promise.all(replicas.map((r) => r.ready()));
  return replicas;
}

/**
 * A client as the UI is one: keeps the last state of each instance from instance_update frames, and on a
 * resync refetches (here: reads the truth).
 */
function client(bus: Events, truth: Map<string, string>) {
  const state = new Map<string, string>();
  const resyncs: PublishedEvent[] = [];
  bus.onEvent((e) => {
    if (e.type === 'instance_update') state.set(e.name!, (e.data as { resourceVersion: string }).resourceVersion);
    if ((e.type as string) === 'resync') {
      resyncs.push(e);
      for (const [name, rv] of truth) state.set(name, rv);
    }
  });
  return { state, resyncs };
}

/** One change of an instance as an informer sees it: an update event carrying the object's identity and version. */
const change = (name: string, uid: string, resourceVersion: string): DomainEvent => ({
  type: 'instance_update',
  object: `instances/alpha/dev/WebApp/${name}`,
  project: 'alpha',
  namespace: 'dev',
  name,
  uid,
  resourceVersion,
  data: { name, resourceVersion },
});

/** Both replicas observe the change and race for its claim, as they do for a shared cluster. */
const observe = (replicas: Events[], event: DomainEvent) =>
  Promise.all(replicas.map((r) => r.publish(event, { claim: `${event.uid}:${event.resourceVersion}:update` })));

describe('event fan-out under faults (issue 15): at least once, in order per object, or a resync', () => {
  it('a publish that fails after its replica won the claim is retried: every client gets the last change', async () => {
    const faults: Faults = { gaps: [], failPublish: { containing: '"resourceVersion":"103"', times: 2 } };
    const replicas = await twoReplicas(faults);
    const truth = new Map([['shop', '103']]);
    const clients = [client(replicas[0], truth), client(replicas[0], truth), client(replicas[1], truth)];

    for (const rv of ['101', '102', '103']) await observe(replicas, change('shop', 'uid-shop', rv));
    const deadline = Date.now() + 5_000;
    while (clients.some((c) => c.state.get('shop') !== '103') && Date.now() < deadline) await sleep(20);
    expect(faults.failPublish!.times).toBe(0); // the fault really happened
    for (const c of clients) expect(c.state.get('shop')).toBe('103');
  });

  it('two changes of one object that arrive out of order: every client ends on the later one', async () => {
    // The replica that wins 202 publishes it late, after 203 went out from the other replica.
    const faults: Faults = { gaps: [], delayPublish: { containing: '"resourceVersion":"202"', ms: 300 } };
    const replicas = await twoReplicas(faults);
    const truth = new Map([['cart', '203']]);
    const clients = [client(replicas[0], truth), client(replicas[1], truth)];
    const seen: string[][] = clients.map(() => []);
    replicas.forEach((r, i) => r.onEvent((e) => e.name === 'cart' && seen[i].push((e.data as { resourceVersion: string }).resourceVersion)));

    await observe(replicas, change('cart', 'uid-cart', '201'));
    await sleep(100);
    void observe(replicas, change('cart', 'uid-cart', '202'));
    await sleep(20);
    await observe(replicas, change('cart', 'uid-cart', '203'));
    await sleep(600);
    for (const c of clients) expect(c.state.get('cart')).toBe('203');
    // What each client saw went only forward.
    for (const versions of seen) expect(versions).toEqual([...versions].sort());
  });

  it('a duplicate of a change (two replicas both publishing it) reaches each client once', async () => {
    const replicas = await twoReplicas({ gaps: [] });
    const got: string[] = [];
    replicas[1].onEvent((e) => e.name === 'dup' && got.push((e.data as { resourceVersion: string }).resourceVersion));
    // No claim: both replicas publish the same change (as after a claim expired).
    await Promise.all(replicas.map((r) => r.publish(change('dup', 'uid-dup', '301'))));
    await sleep(200);
    expect(got).toEqual(['301']);
  });

  it('a gap in the subscription (the store reconnected) tells every listener to resync', async () => {
    const faults: Faults = { gaps: [] };
    const replicas = await twoReplicas(faults);
    const truth = new Map([['lost', '401']]);
    const c = client(replicas[1], truth);
    expect(faults.gaps.length).toBeGreaterThan(0);
    faults.gaps[1]();
    await sleep(50);
    expect(c.resyncs).toHaveLength(1);
    expect(c.resyncs[0].data).toMatchObject({ reason: expect.any(String) });
    expect(c.state.get('lost')).toBe('401');
  });
});
