import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryKeyValue } from '../../src/adapters/memory-kv.js';
import { createRedisKeyValue } from '../../src/adapters/redis-kv.js';
import { createEvents, eventsChannel, type Events, type PublishedEvent } from '../../src/events/index.js';
import { jsonBytes, jsonText, withJsonText, withLazyJsonText, withSplicedJsonText } from '../../src/json-text.js';
import { createLogger } from '../../src/logger.js';
import { deleteRedisKeys, redisAddress } from '../support/redis.js';
import type { KeyValue } from '../../src/ports/keyvalue.js';
import type { DomainEvent } from '../../src/types.js';
import { actors, seededCluster, startWorld, waitUntil, type World } from '../instances/world.js';

const logger = createLogger('silent');
const prefix = `portico-test:${process.pid}:${randomUUID()}:`;

const event = (name: string): DomainEvent => ({
  type: 'instance_update',
  object: `instances/alpha/dev/WebApp/${name}`,
  project: 'alpha',
  namespace: 'dev',
  name,
  data: { name },
});

/** Lets in-flight pub/sub messages arrive, so "exactly once" also means "no late duplicate". */
const quiet = () => new Promise((r) => setTimeout(r, 150));

const opened: { close(): Promise<void> }[] = [];
const redisKv = () => {
  const kv = createRedisKeyValue({ address: redisAddress, prefix, logger });
  opened.push(kv);
  return kv;
};
const events = (kv: KeyValue, replicaId?: string) => {
  const bus = createEvents({ kv, logger, replicaId });
  opened.push(bus);
  return bus;
};
const collect = (bus: Events) => {
  const got: PublishedEvent[] = [];
  bus.onEvent((e) => got.push(e));
  return got;
};

afterAll(async () => {
  for (const o of opened.reverse()) await o.close();
  await deleteRedisKeys(prefix);
});

describe('events over one real Redis', () => {
  it('an event published by one process reaches the listeners of both, exactly once each', async () => {
    const a = events(redisKv(), 'replica-a');
    const b = events(redisKv(), 'replica-b');
    await Promise.all([a.ready(), b.ready()]);
    const gotA = collect(a);
    const gotA2 = collect(a);
    const gotB = collect(b);

    await a.publish(event('from-a'));
    await b.publish(event('from-b'));
    await waitUntil(() => gotA.length >= 2 && gotB.length >= 2 && gotA2.length >= 2);
    await quiet();

    for (const got of [gotA, gotA2, gotB]) {
      expect(got.map((e) => e.name).sort()).toEqual(['from-a', 'from-b']);
    }
    const fromA = gotB.find((e) => e.name === 'from-a')!;
    expect(fromA).toMatchObject({ type: 'instance_update', object: 'instances/alpha/dev/WebApp/from-a', origin: 'replica-a' });
    expect(Date.parse(fromA.timestamp)).not.toBeNaN();
  });

  it("an instance event reaches its own process and the other replica with the same JSON, built from the instance's own text", async () => {
    const a = events(redisKv(), 'replica-a');
    const b = events(redisKv(), 'replica-b');
    await Promise.all([a.ready(), b.ready()]);
    const gotA = collect(a);
    const gotB = collect(b);
    const instance = Object.freeze(withLazyJsonText({ name: 'web', spec: { image: 'registry/"quoted"\\é', replicas: 2 }, labels: {} }));
    const data = withSplicedJsonText({ action: 'update', namespace: 'dev', name: 'web', instance }, 'instance');
    const expected = JSON.stringify(data);

    await a.publish({ ...event('web'), data });
    await waitUntil(() => gotA.length >= 1 && gotB.length >= 1);
    expect(jsonText(data)).toBe(expected);
    for (const got of [gotA, gotB]) {
      expect(got).toHaveLength(1);
      expect(jsonText(got[0]!.data)).toBe(expected);
      expect(got[0]).toMatchObject({ type: 'instance_update', object: 'instances/alpha/dev/WebApp/web', origin: 'replica-a' });
    }
  });

  it("a replica sends another replica's event data in the very text it arrived as, and only where the message frames such a value", async () => {
    const a = events(redisKv(), 'replica-a');
    await a.ready();
    const got = collect(a);
    // Hand-written messages, as another replica (or an older one without `dataAt`) would publish them.
    const spaced = '{ "name": "spaced" }';
    const head = '{"v":1,"origin":"replica-z","seq":1,"timestamp":"2026-01-01T00:00:00.000Z","events":[{"type":"instance_update","name":"spaced","data":';
    const text = `${head}${spaced}}],"dataAt":[${head.length},${head.length + spaced.length}]}`;
    const wrongSpan = text.replace(`"dataAt":[${head.length},`, `"dataAt":[${head.length + 1},`).replace('"name":"spaced","data"', '"name":"wrong","data"');
    const older = `${head}${spaced}}]}`.replace('"name":"spaced","data"', '"name":"older","data"');
    // A second event whose span runs backwards, from its own data to the end of the first one's: both ends are braces.
    const head2 = '{"v":1,"origin":"replica-z","seq":2,"timestamp":"2026-01-01T00:00:00.000Z","events":[{"type":"instance_update","name":"first","data":';
    const mid = '},{"type":"instance_update","name":"reversed","data":';
    const firstEnd = head2.length + '{"n":1}'.length;
    const reversed = `${head2}{"n":1}${mid}{"n":2}}],"dataAt":[${head2.length},${firstEnd},${firstEnd + mid.length},${firstEnd}]}`;
    const kv = redisKv();
    for (const message of [text, wrongSpan, older, reversed]) await kv.publish(eventsChannel, message);
    await waitUntil(() => got.length === 5);
    // Both ways a server writes a value (text, bytes) must see the same JSON.
    expect(got.map((e) => [e.name, jsonText(e.data), jsonBytes(e.data).toString('utf8')])).toEqual([
      ['spaced', spaced, spaced],
      ['wrong', '{"name":"spaced"}', '{"name":"spaced"}'],
      ['older', '{"name":"spaced"}', '{"name":"spaced"}'],
      ['first', '{"n":1}', '{"n":1}'],
      ['reversed', '{"n":2}', '{"n":2}'],
    ]);
  });

  it('what one replica publishes, the other sends in the same texts: every data of a message is found where it was written', async () => {
    const a = events(redisKv(), 'replica-a');
    const b = events(redisKv(), 'replica-b');
    await Promise.all([a.ready(), b.ready()]);
    const got = collect(b);
    // Texts JSON.stringify would not write (spaces), so only the published text can explain what b sends.
    const texts = ['{ "name": "é \\"q\\" 😀" }', '[ 1, { "a": [] } ]', '{ }'];
    const datas = [withJsonText({ name: 'é "q" 😀' }, texts[0]!), withJsonText([1, { a: [] }], texts[1]!), withJsonText({}, texts[2]!)];
    await a.publishAll([
      { ...event('first'), data: datas[0] },
      { type: 'counts_changed', data: undefined },
      { ...event('second'), data: datas[1] },
      { ...event('third'), data: datas[2] },
    ]);
    await waitUntil(() => got.length === 4);
    expect(got.map((e) => (e.data === undefined ? undefined : jsonText(e.data)))).toEqual([texts[0], undefined, texts[1], texts[2]]);
  });

  it('with a claim, two replicas observing the same change publish it once', async () => {
    const a = events(redisKv(), 'replica-a');
    const b = events(redisKv(), 'replica-b');
    await Promise.all([a.ready(), b.ready()]);
    const gotA = collect(a);
    const gotB = collect(b);
    const claim = `uid-1:${randomUUID()}:MODIFIED`;

    await Promise.all([a.publishAll([event('same'), { type: 'counts_changed', data: {} }], { claim }), b.publishAll([event('same'), { type: 'counts_changed', data: {} }], { claim })]);
    await waitUntil(() => gotA.length >= 2 && gotB.length >= 2);
    await quiet();
    expect(gotA.map((e) => e.type)).toEqual(['instance_update', 'counts_changed']);
    expect(gotB.map((e) => e.type)).toEqual(['instance_update', 'counts_changed']);
    // a different change (new resourceVersion) is news again
    await b.publish(event('same'), { claim: claim.replace('MODIFIED', 'DELETED') });
    await waitUntil(() => gotA.length === 3 && gotB.length === 3);
  });
});

describe('events in one process', () => {
  it('a throwing listener does not keep the event from the others; a closed listener gets nothing more', async () => {
    const kv = createMemoryKeyValue();
    const bus = events(kv);
    await bus.ready();
    const got: string[] = [];
    bus.onEvent(() => {
      throw new Error('listener bug');
    });
    const sub = bus.onEvent((e) => got.push(`first:${e.name}`));
    bus.onEvent((e) => got.push(`second:${e.name}`));
    await bus.publish(event('one'));
    await waitUntil(() => got.length === 2);
    sub.close();
    await bus.publish(event('two'));
    await waitUntil(() => got.length === 3);
    expect(got).toEqual(['first:one', 'second:one', 'second:two']);
    await kv.close();
  });

  it('a message that only looks like one of ours (same origin and number, other text) is read for what it says', async () => {
    const kv = createMemoryKeyValue();
    // replica-a's own messages are held on their way, so another one can arrive while they are out.
    const held: string[] = [];
    const holding: KeyValue = { ...kv, publish: async (_channel, message) => void held.push(message) };
    const a = events(holding, 'replica-a');
    await a.ready();
    const got = collect(a);
    await a.publish(event('mine'));
    const impostor = held[0]!.replace(/"name":"mine"/g, '"name":"impostor"');
    expect(impostor.startsWith('{"v":1,"origin":"replica-a","seq":1,')).toBe(true);
    await kv.publish(eventsChannel, impostor);
    await kv.publish(eventsChannel, held[0]!);
    await waitUntil(() => got.length === 2);
    expect(got.map((e) => e.name)).toEqual(['impostor', 'mine']);
    await kv.close();
  });
});

describe('instance events from two replicas sharing one cluster', () => {
  const worlds: World[] = [];
  afterEach(async () => {
    for (const w of worlds.splice(0)) await w.close();
  });

  it('each change is published once, and every replica delivers it', async () => {
    const cluster = await seededCluster();
    try {
      const kvA = redisKv();
      const kvB = redisKv();
      worlds.push(await startWorld({ cluster, kv: kvA }), await startWorld({ cluster, kv: kvB }));
      const [a, b] = worlds;
      await a.instances.create(actors.alice, { name: 'twice', namespace: 'dev', project: 'alpha', kind: 'WebApp', values: { image: 'x' } });
      await cluster.controller.settle();
      const activeOn = (w: World) =>
        w.nextEvent((e) => e.type === 'deploy_progress' && e.name === 'twice' && (e.data as { phase: string }).phase === 'ACTIVE');
      await Promise.all([activeOn(a), activeOn(b)]);
      await quiet();

      for (const w of [a, b]) {
        const updates = w.received.filter((e) => e.type === 'instance_update' && e.name === 'twice');
        const versions = updates.map((e) => (e.data as { instance: { resourceVersion: string } }).instance.resourceVersion);
        // every resourceVersion of the object once, not once per replica
        expect(new Set(versions).size).toBe(versions.length);
        expect((updates[0].data as { action: string }).action).toBe('add');
        const progress = w.received.filter((e) => e.type === 'deploy_progress' && e.name === 'twice').map((e) => (e.data as { readyResources: number }).readyResources);
        expect(progress).toEqual([...progress].sort((x, y) => x - y));
        expect(progress.at(-1)).toBe(3);
      }
      // both replicas delivered the same sequence
      const ids = (w: World) => w.received.filter((e) => e.name === 'twice').map((e) => `${e.type}@${e.timestamp}`);
      expect(ids(b)).toEqual(ids(a));
    } finally {
      for (const w of worlds.splice(0)) await w.close();
      await cluster.close();
    }
  });
});
