import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../src/freeze.js';
import { eventsForChange } from '../../src/instances/instance-events.js';
import type { IndexedInstance } from '../../src/instances/instance-index.js';
import { toInstance } from '../../src/instances/instance-resource.js';
import { jsonText, withLazyJsonText, withSplicedJsonText } from '../../src/json-text.js';
import type { KubeObject } from '../../src/ports/cluster.js';

const ref = { group: 'kro.run', version: 'v1alpha1', kind: 'WebApp', plural: 'webapps', namespaced: true };

/** An index entry as the instance index builds it: a frozen instance carrying its own JSON text. */
function indexed(obj: KubeObject, isClusterScoped = false): IndexedInstance {
  const instance = deepFreeze(withLazyJsonText(toInstance(obj, { isClusterScoped, rgdName: 'webapp' })));
  const id = `${instance.namespace}/WebApp/${instance.name}`;
  return {
    id,
    object: obj,
    instance,
    sortKeys: { name: instance.name, namespace: instance.namespace, kind: instance.kind, project: instance.project, health: instance.health, createdAt: 0, updatedAt: 0 },
    project: instance.project,
    rbacObject: `instances/${instance.project}/${id}`,
    kindKey: 'kro.run/v1alpha1/WebApp',
    ref,
  };
}

const webApp = (resourceVersion: string, ready: number, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'kro.run/v1alpha1',
  kind: 'WebApp',
  metadata: {
    name: 'shop',
    namespace: 'dev',
    uid: 'u-1',
    resourceVersion,
    creationTimestamp: '2026-11-25T10:00:00Z',
    labels: { 'portico.dev/project': 'alpha', 'portico.dev/rgd': 'webapp' },
    ...extra,
  },
  spec: { image: 'registry.example/shop:"1.0"', note: 'ünïcode \u2028 line' },
  status: {
    state: ready === 3 ? 'ACTIVE' : 'IN_PROGRESS',
    conditions: [{ type: 'ResourcesReady', status: ready === 3 ? 'True' : 'False', reason: 'Progressing', message: `${ready}/3 resources ready`, lastTransitionTime: `2026-11-25T10:0${ready}:00Z` }],
  },
});

describe('instance events', () => {
  it("an instance_update's JSON is exactly JSON.stringify of it, spliced from the instance's own text", () => {
    for (const isClusterScoped of [false, true]) {
      const current = indexed(webApp('2', 1), isClusterScoped);
      const previous = indexed(webApp('1', 0), isClusterScoped);
      const [update, progress] = eventsForChange({ action: 'update', current, previous, cause: 'MODIFIED' }, () => 3);
      expect(update!.type).toBe('instance_update');
      expect(jsonText(update!.data)).toBe(JSON.stringify(update!.data));
      expect(JSON.parse(jsonText(update!.data))).toMatchObject({ action: 'update', name: 'shop', instance: { spec: { note: 'ünïcode \u2028 line' } } });
      expect(progress).toMatchObject({ type: 'deploy_progress', data: { readyResources: 1, totalResources: 3 } });
    }
  });

  it("Portico's own bookkeeping write (only the resourceVersion and an annotation moved) sends nothing; a status step sends both events", () => {
    const before = indexed(webApp('1', 1));
    const bookkeeping = indexed(webApp('2', 1, { annotations: { 'portico.dev/timeline': '[]' } }));
    expect(eventsForChange({ action: 'update', current: bookkeeping, previous: before, cause: 'MODIFIED' }, () => 3)).toEqual([]);
    const step = indexed(webApp('3', 2));
    expect(eventsForChange({ action: 'update', current: step, previous: before, cause: 'MODIFIED' }, () => 3).map((e) => e.type)).toEqual([
      'instance_update',
      'deploy_progress',
    ]);
  });

  it("an index entry's instance cannot be changed by whoever reads it, nested arrays and objects included", () => {
    const { instance } = indexed(webApp('1', 1));
    expect(() => {
      (instance.status.conditions[0] as { message: string }).message = 'tampered';
    }).toThrow(TypeError);
    expect(() => {
      (instance.spec as Record<string, unknown>).image = 'evil';
    }).toThrow(TypeError);
    expect(() => (instance.conditions as unknown[]).push({})).toThrow(TypeError);
    expect(instance.status.conditions[0]!.message).toBe('1/3 resources ready');
    expect(JSON.parse(jsonText(instance)).spec.image).toBe('registry.example/shop:"1.0"');
  });

  it('a spliced text falls back to JSON.stringify when the key is not last or holds no object', () => {
    const inner = withLazyJsonText({ a: 1 });
    const notLast = withSplicedJsonText({ inner, after: 'x' } as { inner: object; after: string }, 'inner');
    expect(jsonText(notLast)).toBe('{"inner":{"a":1},"after":"x"}');
    const alone = withSplicedJsonText({ inner }, 'inner');
    expect(jsonText(alone)).toBe('{"inner":{"a":1}}');
    const empty = withSplicedJsonText({ name: 'n', inner: null as object | null }, 'inner');
    expect(jsonText(empty)).toBe('{"name":"n","inner":null}');
  });
});
