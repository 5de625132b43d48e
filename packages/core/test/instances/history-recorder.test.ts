import type * as api from '@portico/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedCluster, type EmbeddedCluster } from '../../src/adapters/embedded-cluster/index.js';
import { createHistoryStore, recordHistory, type HistoryRecorder, type HistoryStore } from '../../src/instances/index.js';
import type { IndexChange, IndexedInstance, InstanceIndex } from '../../src/instances/index-types.js';
import { createLogger } from '../../src/logger.js';
import type { Cluster, KubeObject } from '../../src/ports/cluster.js';

const logger = createLogger('silent');

/** The cluster calls a replica makes, by method. */
function counted(cluster: Cluster) {
  const calls: Record<string, number> = {};
  let busy = 0;
  const wrapped = new Proxy(cluster, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function' || !['get', 'list', 'create', 'patch', 'delete'].includes(String(prop))) return value;
      return async (...args: unknown[]) => {
        calls[String(prop)] = (calls[String(prop)] ?? 0) + 1;
        busy++;
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } finally {
          busy--;
        }
      };
    },
  });
  return { cluster: wrapped, calls, idle: () => busy === 0 };
}

/** An index that only passes on the changes a test hands it. */
function fakeIndex() {
  const listeners = new Set<(change: IndexChange) => void>();
  const index = { onChange: (l: (change: IndexChange) => void) => (listeners.add(l), { close: () => void listeners.delete(l) }) } as unknown as InstanceIndex;
  return { index, emit: (change: IndexChange) => listeners.forEach((l) => l(change)) };
}

/** The instance `name` at `resourceVersion` with `health`, as the index holds it. */
function indexed(name: string, resourceVersion: number, health: api.Instance['health'], generation = 1): IndexedInstance {
  const object: KubeObject = {
    apiVersion: 'example.com/v1alpha1', kind: 'WebApp',
    metadata: { name, namespace: 'dev', uid: `uid-${name}`, resourceVersion: String(resourceVersion), generation, labels: { 'portico.dev/project': 'alpha' } },
  };
  const instance = {
    uid: `uid-${name}`, name, namespace: 'dev', kind: 'WebApp', project: 'alpha', rgdName: 'webapp', createdAt: '2026-01-01T00:00:00Z',
    deploymentMode: 'direct', health, status: { state: health === 'Healthy' ? 'ACTIVE' : 'IN_PROGRESS' }, conditions: [],
  } as unknown as api.Instance;
  return { id: `dev/WebApp/${name}`, object, instance, project: 'alpha' } as IndexedInstance;
}

describe('history recorder: cluster calls', () => {
  let shared: EmbeddedCluster;
  beforeAll(async () => {
    shared = await createEmbeddedCluster({ logger });
  });
  afterAll(async () => {
    await shared?.close();
  });

  it('two replicas following the same changes: a status write that changes nothing recorded costs no cluster call', async () => {
    const replicas = [0, 1].map(() => {
      const c = counted(shared);
      const { index, emit } = fakeIndex();
      const store: HistoryStore = createHistoryStore({ cluster: c.cluster, namespace: 'portico-history-calls', logger });
      const recorder: HistoryRecorder = recordHistory({ store, index, logger, revisionOf: () => 1 });
      return { ...c, emit, recorder };
    });
    const settle = async () => {
      for (let quiet = 0; quiet < 3; ) {
        await new Promise((r) => setImmediate(r));
        quiet = replicas.every((r) => r.idle()) ? quiet + 1 : 0;
      }
    };

    // More instances than a store keeps documents of: a status write must not need the document to be known.
    const instances = 2_100;
    const quietWrites = 2; // kro's status writes between two states: only the version moves
    let version = 100;
    const last = new Map<string, IndexedInstance>();
    const step = async (health: api.Instance['health']) => {
      for (let i = 0; i < instances; i++) {
        const name = `app-${i}`;
        const current = indexed(name, ++version, health);
        const previous = last.get(name);
        last.set(name, current);
        const change: IndexChange = previous ? { action: 'update', current, previous, cause: 'MODIFIED' } : { action: 'add', current, cause: 'ADDED' };
        for (const r of replicas) r.emit(change);
      }
      await settle();
    };

    await step('Progressing');
    const afterAdd = replicas.map((r) => ({ ...r.calls }));
    for (let n = 0; n < quietWrites; n++) await step('Progressing');
    const quiet = replicas.map((r, i) => Object.entries(r.calls).reduce((sum, [m, count]) => sum + count - (afterAdd[i]![m] ?? 0), 0));
    await step('Healthy');
    for (let n = 0; n < quietWrites; n++) await step('Healthy');

    expect(quiet).toEqual([0, 0]);

    const history = await createHistoryStore({ cluster: shared, namespace: 'portico-history-calls', logger }).read({ namespace: 'dev', kind: 'WebApp', name: 'app-0' });
    expect(history?.events.map((e) => e.eventType)).toEqual(['Created', 'Creating', 'Ready']);
    for (const r of replicas) r.recorder.close();
  });

  it('a recorder that has not written an instance\'s history yet looks at it on its next change, whatever moved (what changed while it was down)', async () => {
    const namespace = 'portico-history-restart';
    const key = { namespace: 'dev', kind: 'WebApp', name: 'app-restart' };
    const first = fakeIndex();
    const before = recordHistory({ store: createHistoryStore({ cluster: shared, namespace, logger }), index: first.index, logger, revisionOf: () => 1 });
    first.emit({ action: 'add', current: indexed('app-restart', 10, 'Progressing'), cause: 'ADDED' });
    await before.catchUp(indexed('app-restart', 10, 'Progressing'));
    before.close();

    // Ready while no recorder ran; the restarted one listed it so, and then sees a status write that moved only the version.
    const second = fakeIndex();
    const store = createHistoryStore({ cluster: shared, namespace, logger });
    const after = recordHistory({ store, index: second.index, logger, revisionOf: () => 1 });
    second.emit({ action: 'update', current: indexed('app-restart', 12, 'Healthy'), previous: indexed('app-restart', 11, 'Healthy'), cause: 'MODIFIED' });
    const recorded = async () => (await store.read(key))?.events.map((e) => e.eventType);
    for (let i = 0; i < 50 && !(await recorded())?.includes('Ready'); i++) await new Promise((r) => setTimeout(r, 10));
    expect(await recorded()).toEqual(['Created', 'Creating', 'Ready']);
    after.close();
  });
});
