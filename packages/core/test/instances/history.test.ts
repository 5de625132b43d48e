import * as api from '@portico/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PorticoError } from '../../src/errors.js';
import { maxTimelineEntries, readTimeline, timelineAnnotation, withEntry } from '../../src/instances/index.js';
import type { InstanceKey } from '../../src/types.js';
import { eventually } from '../support/eventually.js';
import { actors, startWorld, type World } from './world.js';

/** An instance's history as a client in the field shows it: timeline, child resources, Kubernetes Events. */
describe('instance history', () => {
  let world: World;
  let replica: World;
  beforeAll(async () => {
    world = await startWorld();
    replica = await startWorld({ cluster: world.cluster }); // a second Portico on the same cluster records too
  });
  afterAll(async () => {
    await replica?.close();
    await world?.close();
  });

  const create = async (name: string, annotations?: Record<string, string>) => {
    const key: InstanceKey = { namespace: 'dev', kind: 'WebApp', name };
    await world.instances.create(actors.alice, { name, namespace: 'dev', project: 'alpha', kind: 'WebApp', values: { image: 'nginx:1.27' } });
    if (annotations) await world.cluster.patch(world.instances.index.get(key)!.ref, name, { metadata: { annotations } }, { namespace: 'dev' });
    return key;
  };
  const statusEntries = (key: InstanceKey) => world.instances.timeline(actors.alice, key).items.filter((e) => e.type === 'status');

  it('records created → status changes → Ready once, with the actor, although two replicas watch it', async () => {
    const key = await create('history-shop');
    await eventually(() => statusEntries(key), (s) => s.at(-1)?.toState === 'ACTIVE', 'the ACTIVE entry');
    const timeline = api.InstanceTimeline.parse(replica.instances.timeline(actors.vic, key));
    expect(timeline.items[0]).toMatchObject({ type: 'created', actor: 'alice', message: expect.stringContaining('WebApp dev/history-shop') });
    const states = timeline.items.filter((e) => e.type === 'status').map((e) => `${e.fromState ?? ''}→${e.toState}`);
    expect(new Set(states).size).toBe(states.length); // no entry twice, whichever replica wrote it
    expect(states.at(-1)).toMatch(/→ACTIVE$/);
    expect(timeline.items.at(-1)!.message).toMatch(/^Ready/);
    for (let i = 1; i < timeline.items.length; i++) {
      expect(Date.parse(timeline.items[i].timestamp)).toBeGreaterThanOrEqual(Date.parse(timeline.items[i - 1].timestamp));
    }

    await world.instances.patch(actors.alice, key, { spec: { replicas: 3 } });
    await eventually(() => world.instances.timeline(actors.alice, key).items, (items) => items.some((e) => e.type === 'updated'), 'the update entry');
    expect(world.instances.timeline(actors.alice, key).items.find((e) => e.type === 'updated')).toMatchObject({ actor: 'alice', message: 'spec changed: replicas' });
  });

  it('a timeline entry is not news to subscribers: no instance_update for Portico\'s own annotation write', async () => {
    const key = await create('history-quiet');
    await eventually(() => statusEntries(key), (s) => s.at(-1)?.toState === 'ACTIVE', 'the ACTIVE entry');
    const updates = () =>
      world.received.filter((e) => e.type === 'instance_update' && (e.data as api.InstanceUpdate).name === 'history-quiet').map((e) => (e.data as api.InstanceUpdate).instance);
    // Every update shows something new besides its version: the recorder's writes (one per state) sent none.
    const seen = updates();
    for (let i = 1; i < seen.length; i++) expect({ ...seen[i], resourceVersion: '' }).not.toEqual({ ...seen[i - 1], resourceVersion: '' });
    // The last version stored is the timeline write's, newer than the last update sent.
    const stored = world.instances.index.get(key)!.object.metadata.resourceVersion;
    expect(seen.at(-1)!.resourceVersion).not.toBe(stored);
    // A visible change after it is sent as usual, with the version that includes the timeline write.
    await world.instances.patch(actors.alice, key, { spec: { replicas: 7 } });
    const next = await world.nextEvent((e) => e.type === 'instance_update' && (e.data as api.InstanceUpdate).instance.spec.replicas === 7);
    expect(Number((next.data as api.InstanceUpdate).instance.resourceVersion)).toBeGreaterThan(Number(stored));
  });

  it('lists the child resources by spec.resources id, all ready once the instance is', async () => {
    const key = await create('history-kids');
    await eventually(() => world.instances.get(actors.alice, key).health, (h) => h === 'Healthy', 'Healthy');
    const children = api.InstanceChildren.parse(world.instances.children(actors.vic, key));
    expect(children.totalCount).toBe(3);
    expect(children.items.map((c) => [c.id, c.kind, c.name, c.namespace, c.ready, c.status])).toEqual([
      ['deployment', 'ConfigMap', 'history-kids', 'dev', true, 'Ready'],
      ['service', 'ConfigMap', 'history-kids-service', 'dev', true, 'Ready'],
      ['ingress', 'ConfigMap', 'history-kids-ingress', 'dev', true, 'Ready'],
    ]);
  });

  it('shows where a walk failed: ready before it, Failed at it, Pending after', async () => {
    const key = await create('history-fail', { 'portico.dev/simulate-failure': 'service' });
    await eventually(() => world.instances.get(actors.alice, key).status.state, (s) => s === 'ERROR', 'ERROR');
    const children = world.instances.children(actors.alice, key).items;
    expect(children.map((c) => `${c.id}:${c.status}`)).toEqual(['deployment:Ready', 'service:Failed', 'ingress:Pending']);
    expect(children[1].message).toContain('"service"');
    const events = await eventually(() => world.instances.events(actors.alice, key), (l) => l.items.some((e) => e.reason === 'ReconcileError'), 'the failure');
    expect(events.items.find((e) => e.reason === 'ReconcileError')).toMatchObject({ type: 'Warning', source: 'kro', involvedObject: { kind: 'WebApp', name: 'history-fail', namespace: 'dev' } });
    expect(events.items.find((e) => e.reason === 'ResourceFailed')).toMatchObject({ type: 'Warning', involvedObject: { kind: 'ConfigMap', name: 'history-fail-service' } });
  });

  it('answers the Kubernetes Events of the instance and its children, oldest first, and only those', async () => {
    const key = await create('history-events');
    await create('history-other');
    const events = await eventually(
      () => world.instances.events(actors.vic, key),
      (l) => l.items.some((e) => e.reason === 'Ready'),
      'the Ready event',
    );
    api.InstanceEventList.parse(events);
    expect(events.items.every((e) => e.involvedObject.name.startsWith('history-events'))).toBe(true);
    const reasons = events.items.map((e) => e.reason);
    expect(reasons[0]).toBe('Reconciling');
    expect(reasons.at(-1)).toBe('Ready');
    expect(reasons.filter((r) => r === 'ResourceCreated')).toHaveLength(3);
    expect(events.items.filter((e) => e.reason === 'ResourceCreated').map((e) => e.involvedObject.name)).toEqual([
      'history-events',
      'history-events-service',
      'history-events-ingress',
    ]);
  });

  it('hides all three from a caller who may not see the instance (NOT_FOUND, as for the instance itself)', async () => {
    const key = await create('history-private');
    const reads: (() => unknown)[] = [() => world.instances.timeline(actors.bob, key), () => world.instances.children(actors.bob, key), () => world.instances.events(actors.bob, key)];
    for (const read of reads) {
      const err = await Promise.resolve().then(read).then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(PorticoError);
      expect((err as PorticoError).code).toBe('NOT_FOUND');
    }
  });

  it('keeps the timeline bounded: the creation and the newest entries', () => {
    let value = withEntry([], { timestamp: '2026-01-01T00:00:00Z', type: 'created', actor: 'alice', message: 'created' });
    const object = { apiVersion: 'kro.run/v1alpha1', kind: 'WebApp', metadata: { name: 'x', annotations: { [timelineAnnotation]: value } } };
    for (let i = 0; i < maxTimelineEntries + 20; i++) {
      value = withEntry(readTimeline(object), { timestamp: '2026-01-01T00:00:01Z', type: 'updated', message: `change ${i}` });
      object.metadata.annotations[timelineAnnotation] = value;
      // What is read back (kept from the write) is what the text says.
      expect(readTimeline(object)).toEqual(JSON.parse(value));
    }
    const entries = readTimeline(object);
    expect(entries).toHaveLength(maxTimelineEntries);
    expect(entries[0].type).toBe('created');
    expect(entries.at(-1)!.message).toBe(`change ${maxTimelineEntries + 19}`);
  });

  it('writes the annotation as the JSON of its entries, whoever wrote the text before', () => {
    // Text from elsewhere (another replica, a hand edit): other key order, a key Portico does not know, indentation.
    const foreign = JSON.stringify([{ message: 'created', extra: 1, type: 'created', timestamp: '2026-01-01T00:00:00Z' }], null, 2);
    const object = { apiVersion: 'kro.run/v1alpha1', kind: 'WebApp', metadata: { name: 'y', annotations: { [timelineAnnotation]: foreign } } };
    const created = { timestamp: '2026-01-01T00:00:00Z', type: 'created', message: 'created' };
    const ready = { timestamp: '2026-01-01T00:00:02Z', type: 'status', message: 'Ready', toState: 'ACTIVE' } as const;
    const first = withEntry(readTimeline(object), ready);
    expect(first).toBe(JSON.stringify([created, ready]));
    object.metadata.annotations[timelineAnnotation] = first;
    const again = { timestamp: '2026-01-01T00:00:03Z', type: 'status', message: 'IN_PROGRESS', fromState: 'ACTIVE', toState: 'IN_PROGRESS' } as const;
    expect(withEntry(readTimeline(object), again)).toBe(JSON.stringify([created, ready, again]));
    // Same length, same newest entries, another oldest one (a hand edit of the creation): read as it is.
    let long = first;
    for (let i = 0; i < 10; i++) {
      object.metadata.annotations[timelineAnnotation] = long;
      long = withEntry(readTimeline(object), { ...again, message: `step ${i}` });
    }
    const edited = long.replace('"created","message":"created"', '"created","message":"CREATED"');
    expect(edited.length).toBe(long.length);
    object.metadata.annotations[timelineAnnotation] = edited;
    expect(readTimeline(object)[0].message).toBe('CREATED');
    // A hand edit that is not JSON: the timeline starts again from the creation the object records.
    object.metadata.annotations[timelineAnnotation] = '[{"type":';
    expect(readTimeline(object)).toEqual([]);
  });
});
