import { describe, expect, it, vi } from 'vitest';
import { createMemoryKeyValue } from '../../src/adapters/memory-kv.js';
import { createLogger, type KubeObject } from '../../src/index.js';
import { watchDrift, type DriftDeps } from '../../src/instances/drift.js';
import type { IndexChange, IndexedInstance } from '../../src/instances/index-types.js';

/** A Git-mode instance as the index holds it, at a generation and with its status. */
function indexed(generation: number, state: string): IndexedInstance {
  const object: KubeObject = {
    apiVersion: 'kro.run/v1alpha1', kind: 'WebApp',
    metadata: { name: 'shop', namespace: 'dev', uid: 'u-1', generation, resourceVersion: String(generation * 10), annotations: {} },
    spec: { replicas: generation }, status: { state },
  };
  return { id: 'dev/WebApp/shop', project: 'alpha', object, ref: { group: 'kro.run', version: 'v1alpha1', plural: 'webapps' }, instance: { deploymentMode: 'gitops' } } as unknown as IndexedInstance;
}

describe('drift: what makes Portico read Git', () => {
  it('a spec change is compared with Git at once; status changes of the same spec are not (the sweep covers the remote)', async () => {
    const listeners: ((change: IndexChange) => void)[] = [];
    let reads = 0;
    const deps = {
      index: { onChange: (l: (c: IndexChange) => void) => (listeners.push(l), { close() {} }), all: () => [] },
      cluster: { patch: async () => ({}) },
      git: { read: async () => (reads++, { content: 'spec:\n  replicas: 1\n', commit: 'c1' }) },
      placementOf: () => ({}),
      intervalMs: 60_000,
      logger: createLogger('silent'),
    } as unknown as DriftDeps;
    const watch = watchDrift(deps);
    const emit = (change: IndexChange) => listeners.forEach((l) => l(change));
    const settle = () => new Promise((r) => setTimeout(r, 20));

    emit({ action: 'add', current: indexed(1, 'IN_PROGRESS') } as IndexChange);
    await settle();
    expect(reads).toBe(1);
    for (const state of ['IN_PROGRESS', 'ACTIVE', 'ACTIVE']) emit({ action: 'update', previous: indexed(1, 'IN_PROGRESS'), current: indexed(1, state) } as IndexChange);
    await settle();
    expect(reads).toBe(1);
    emit({ action: 'update', previous: indexed(1, 'ACTIVE'), current: indexed(2, 'ACTIVE') } as IndexChange);
    await settle();
    expect(reads).toBe(2);
    watch.close();
  });

  it('the periodic sweep of a period is done by one replica of those sharing a store, not by each', async () => {
    vi.useFakeTimers({ now: 0, toFake: ['setInterval', 'clearInterval', 'Date'] });
    try {
      const shared = createMemoryKeyValue();
      const reads = [0, 0];
      const replica = (n: number) =>
        watchDrift({
          index: { onChange: () => ({ close() {} }), all: () => [indexed(1, 'ACTIVE'), { ...indexed(1, 'ACTIVE'), id: 'dev/WebApp/cart' }] },
          cluster: { patch: async () => ({}) },
          git: { read: async () => (reads[n]++, { content: 'spec:\n  replicas: 1\n', commit: 'c1' }) },
          placementOf: () => ({}),
          intervalMs: 1_000,
          claimSweep: (period: string, ttlMs: number) => shared.set(`drift-sweep:${period}`, String(n), { ttlMs, ifAbsent: true }),
          logger: createLogger('silent'),
        } as unknown as DriftDeps);
      const watches = [replica(0), replica(1)];
      for (let period = 0; period < 3; period++) {
        await vi.advanceTimersByTimeAsync(1_000);
        await new Promise((r) => setImmediate(r));
      }
      // Three periods, two instances each: six reads in all, wherever they ran; without the claim, twelve.
      expect(reads[0] + reads[1]).toBe(6);
      for (const w of watches) w.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
