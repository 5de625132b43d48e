import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInformer } from '../../src/cluster/informer.js';
import { resources, type ResourceRef } from '../../src/ports/cluster.js';
import { actors, rgd, startWorld, waitUntil, type World } from './world.js';

/**
 * Instances that exist before their RGD joins the catalog (created with kubectl, or the RGD was taken out of the
 * catalog and put back) enter the index with the kind's first list, without per-instance events. Counts move all
 * the same, so subscribers must hear `counts_changed` once they are indexed.
 */
describe('a kind joining the catalog with instances already in the cluster', () => {
  let world: World;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  /** Alice's instance count at the moment each counts_changed event was delivered. */
  const countsAtEvent: number[] = [];

  beforeAll(async () => {
    // The LateApp informer syncs only when the test says so: the catalog's own counts_changed (sent when the RGD
    // enters the catalog) then certainly comes before the instances are indexed.
    const gated = ((cluster, ref: ResourceRef, opts) => {
      const informer = createInformer(cluster, ref, opts);
      if (ref.kind !== 'LateApp') return informer;
      return { ...informer, start: () => released.then(() => informer.start()) };
    }) as typeof createInformer;
    world = await startWorld({ createInformer: gated });
    world.events.onEvent((e) => {
      if (e.type === 'counts_changed') countsAtEvent.push(world.instances.count(actors.alice).count);
    });
  });
  afterAll(async () => {
    release();
    await world?.close();
  });

  it('publishes counts_changed once they are indexed', async () => {
    const object = rgd('late-app', { kind: 'LateApp' });
    object.metadata.annotations!['portico.dev/catalog'] = 'false';
    await world.cluster.create(resources.rgd, object);
    const lateRef = (await world.cluster.discover('kro.run', 'v1alpha1', 'LateApp'))!;
    for (const name of ['kubectl-1', 'kubectl-2']) {
      await world.cluster.create(lateRef, {
        apiVersion: 'kro.run/v1alpha1',
        kind: 'LateApp',
        metadata: { name, namespace: 'dev', labels: { 'portico.dev/project': 'alpha' } },
        spec: {},
      });
    }
    await world.cluster.controller.settle(); // RGD Active, instances ACTIVE: nothing else will move
    const before = world.instances.count(actors.alice).count;

    await world.cluster.patch(resources.rgd, 'late-app', { metadata: { annotations: { 'portico.dev/catalog': 'true' } } });
    await world.nextEvent((e) => e.type === 'rgd_update' && e.name === 'late-app');
    await waitUntil(() => countsAtEvent.length > 0, 5_000, "the catalog's counts_changed");
    expect(countsAtEvent.at(-1)).toBe(before);

    release();
    await waitUntil(() => countsAtEvent.includes(before + 2), 5_000, 'a counts_changed with the indexed instances');
    expect(world.instances.list(actors.alice, { page: 1, pageSize: 500, sortBy: 'name', sortOrder: 'asc', kind: 'LateApp' }).totalCount).toBe(2);
  });
});
