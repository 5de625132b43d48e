import { describe, expect, it } from 'vitest';
import type { Informer, InformerEvent } from '../../src/cluster/informer-types.js';
import type { KubeObject } from '../../src/ports/cluster.js';
import { resources } from '../../src/ports/cluster.js';
import { expandDestinations, isNamespacePattern, namespaceMatches, waitForInformer } from '../../src/projects/index.js';

/** A hand-driven informer: the test decides when the cache changes. */
function manualInformer() {
  const cache = new Map<string, KubeObject>();
  const listeners = new Set<(e: InformerEvent) => void>();
  const informer: Informer = {
    ref: resources.project,
    start: async () => {},
    stop: () => {},
    list: () => [...cache.values()],
    get: (name) => cache.get(name),
    on(listener) {
      listeners.add(listener);
      return { close: () => listeners.delete(listener) };
    },
    health: () => ({ ok: true }),
  };
  const set = (name: string, resourceVersion?: string) => {
    const object = { apiVersion: 'portico.dev/v1alpha1', kind: 'Project', metadata: { name, resourceVersion } };
    if (resourceVersion === undefined) cache.delete(name);
    else cache.set(name, object);
    for (const l of listeners) l({ type: resourceVersion === undefined ? 'DELETED' : 'MODIFIED', object });
  };
  return { informer, set, listeners };
}

describe('namespace patterns', () => {
  it.each([
    ['*', 'anything', true],
    ['dev-*', 'dev-a', true],
    ['dev-*', 'dev-', true],
    ['dev-*', 'prod-dev-a', false],
    ['*-prod', 'team-prod', true],
    ['*-prod', 'team-prod-2', false],
    ['staging', 'staging', true],
    ['staging', 'staging-2', false],
  ])('%s matches %s: %s', (pattern, ns, expected) => {
    expect(namespaceMatches(pattern, ns)).toBe(expected);
  });

  it('tells a pattern from an exact name as matching does (a name with a star inside matches only itself)', () => {
    expect(['*', 'team-*', '*-prod', 'staging', 'a*b'].map(isNamespacePattern)).toEqual([true, true, true, false, false]);
    expect(namespaceMatches('a*b', 'a*b')).toBe(true);
    expect(namespaceMatches('a*b', 'axb')).toBe(false);
  });

  it('expands to sorted real namespaces without duplicates', () => {
    expect(expandDestinations([{ namespace: 'b*' }, { namespace: 'bx' }, { namespace: 'nope' }], ['bx', 'a', 'by', 'bx'])).toEqual(['bx', 'by']);
  });
});

describe('waitForInformer', () => {
  it('resolves when the cache reaches the version, or a later one', async () => {
    const { informer, set, listeners } = manualInformer();
    set('p', '10');
    const exact = waitForInformer(informer, 'p', undefined, { resourceVersion: '11' }, 1_000);
    const later = waitForInformer(informer, 'p', undefined, { resourceVersion: '12' }, 1_000);
    set('p', '11');
    expect(await exact).toBe(true);
    set('p', '13');
    expect(await later).toBe(true);
    expect(listeners.size).toBe(0);
  });

  it('resolves on deletion, and false after the timeout when the write never shows', async () => {
    const { informer, set, listeners } = manualInformer();
    set('p', '10');
    const gone = waitForInformer(informer, 'p', undefined, { deleted: true }, 1_000);
    set('p');
    expect(await gone).toBe(true);
    expect(await waitForInformer(informer, 'q', undefined, { resourceVersion: '5' }, 20)).toBe(false);
    expect(listeners.size).toBe(0);
  });
});
